import Foundation

/// Where received files go by default: `$XDG_DOWNLOAD_DIR/lanchat`, else
/// `~/Downloads/lanchat` (`LANCHAT_DOWNLOAD_DIR` or `--download-dir`
/// replace it). Created, mode 0700, when the first file is accepted.
enum DownloadDirectory {
    static func defaultPath(environment: [String: String]) -> String {
        if let chosen = environment["LANCHAT_DOWNLOAD_DIR"], !chosen.isEmpty { return chosen }
        if let xdg = environment["XDG_DOWNLOAD_DIR"], xdg.hasPrefix("/") { return xdg + "/lanchat" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/Downloads/lanchat"
    }
}
