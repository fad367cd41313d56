import ChatCore
import ChatNode

extension InteractiveSession {
    /// A file event on the console: offers, answers, done and failed in
    /// full; progress only at each quarter.
    func showFile(_ event: FileTransferEvent) {
        switch event {
        case .progress(let transfer):
            guard transfer.size > 0 else { return }
            let quarter = Int(transfer.bytes * 4 / transfer.size)
            guard quarter > fileQuarters[transfer.id, default: 0], quarter < 4 else { return }
            fileQuarters[transfer.id] = quarter
        case .done(let transfer), .failed(let transfer):
            fileQuarters[transfer.id] = nil
        default:
            break
        }
        guard let line = ConsoleRenderer.fileNotice(event) else { return }
        if case .failed = event { screen.write(renderer.error(line)) } else { screen.write(renderer.notice(line)) }
    }
}
