import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// File transfers the node must resume survive a reopen, field for field.
@Suite struct FileTransferStoreTests {
    static func transfer(_ bits: UInt64, direction: FileTransfer.Direction, state: FileTransfer.State) -> FileTransfer {
        FileTransfer(id: MessageID(millis: 1_732_147_200_000 + Int64(bits), random: (bits, bits)), direction: direction,
                     peer: Fixtures.bob, peerNickname: "bob", peerKey: "a2V5", name: "사진 (1).png", size: 1 << 33,
                     sha256: String(repeating: "ab", count: 32), path: "/tmp/x/.사진.part", modified: 1_700_000_000_123_456_789,
                     port: 40_125, state: state, bytes: 12_345, reason: state == .failed ? "the file changed" : nil)
    }

    @Test func rowsSurviveAReopenAndCanBeDeleted() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let sending = Self.transfer(1, direction: .sending, state: .offered)
            var receiving = Self.transfer(2, direction: .receiving, state: .accepted)
            let failed = Self.transfer(3, direction: .receiving, state: .failed)
            do {
                let store = try ChatStore(path: path, localNumber: Fixtures.me)
                for transfer in [failed, receiving, sending] { try await store.save(transfer) }
                receiving.state = .done
                receiving.path = "/tmp/x/사진 (1).png"
                try await store.save(receiving)  // replaces, never duplicates
                await store.close()
            }
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await store.fileTransfers() == [sending, receiving, failed])
            try await store.deleteFileTransfer(sending.id)
            #expect(try await store.fileTransfers().map(\.id) == [receiving.id, failed.id])
            await store.close()
        }
    }
}
