import ChatCore
import Testing

/// A `fileOffer` frame's content: round trip and every field checked.
@Suite struct FileOfferTests {
    static let digest = String(repeating: "ab", count: 32)

    @Test func roundTrips() throws {
        let offer = FileOffer(name: "notes \"v2\".txt", size: 5, sha256: Self.digest, port: 40125)
        #expect(try FileOffer(content: offer.content) == offer)
        #expect(offer.content.hasPrefix(#"{"name":"#))
    }

    @Test(arguments: [
        "not json",
        "[]",
        #"{"size":1,"sha256":"\#(digest)","port":1}"#,
        #"{"name":"","size":1,"sha256":"\#(digest)","port":1}"#,
        #"{"name":"a","size":-1,"sha256":"\#(digest)","port":1}"#,
        #"{"name":"a","size":1.5,"sha256":"\#(digest)","port":1}"#,
        #"{"name":"a","size":2000000000000000000,"sha256":"\#(digest)","port":1}"#,
        #"{"name":"a","size":1,"sha256":"AB","port":1}"#,
        #"{"name":"a","size":1,"sha256":"\#(digest.uppercased())","port":1}"#,
        #"{"name":"a","size":1,"sha256":"\#(digest)","port":0}"#,
        #"{"name":"a","size":1,"sha256":"\#(digest)","port":65536}"#,
        #"{"name":"a","size":1,"sha256":"\#(digest)"}"#,
    ])
    func refusesMalformed(content: String) {
        #expect(throws: FileOffer.Failure.self) { try FileOffer(content: content) }
    }

    @Test func refusesOverlongNames() {
        let name = String(repeating: "n", count: FileOffer.maxNameBytes + 1)
        let content = FileOffer(name: name, size: 1, sha256: Self.digest, port: 1).content
        #expect(throws: FileOffer.Failure.self) { try FileOffer(content: content) }
    }
}
