import ChatCore
import Testing

/// `FileName`: what a hostile peer can put in an offer's name never
/// becomes a path, a hidden file, an escape sequence or a reordered name.
@Suite struct FileNameTests {
    @Test(arguments: [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "_.._etc_passwd"),
        ("/etc/passwd", "_etc_passwd"),
        ("..", "file"),
        (".", "file"),
        ("...", "file"),
        ("", "file"),
        ("   ", "file"),
        (".bashrc", "bashrc"),
        ("..\\..\\windows\\system32", "_.._windows_system32"),
        ("a/b\\c", "a_b_c"),
        ("name. ", "name"),
        ("trailing...", "trailing"),
        ("evil\u{1B}[2Jclear.txt", "evil_[2Jclear.txt"),
        ("bell\u{07}.txt", "bell_.txt"),
        ("c1\u{9B}31m.txt", "c1_31m.txt"),
        ("new\nline.txt", "new_line.txt"),
        ("nul\u{0}byte", "nul_byte"),
        ("del\u{7F}", "del_"),
        ("invoice\u{202E}fdp.exe", "invoice_fdp.exe"),
        ("iso\u{2066}late\u{2069}.txt", "iso_late_.txt"),
        ("zero\u{200B}width\u{200D}.txt", "zero_width_.txt"),
        ("bom\u{FEFF}.txt", "bom_.txt"),
        ("line\u{2028}sep\u{2029}.txt", "line_sep_.txt"),
        ("private\u{E000}.txt", "private_.txt"),
        ("nonchar\u{FFFF}.txt", "nonchar_.txt"),
        ("사진.png", "사진.png"),
        ("cafe\u{0301}.txt", "café.txt"),
        ("🎉 party.txt", "🎉 party.txt"),
    ])
    func cleans(offered: String, expected: String) {
        #expect(FileName(cleaning: offered).value == expected)
    }

    @Test func cleanedNamesAreOneSafeComponent() {
        let hostile = ["../x", "/", "\\", ".\u{202E}.", "\u{1B}]0;title\u{07}", String(repeating: "../", count: 100)]
        for offered in hostile {
            let name = FileName(cleaning: offered).value
            #expect(!name.contains("/") && !name.contains("\\"), "\(offered)")
            #expect(!name.hasPrefix("."), "\(offered)")
            #expect(name != ".." && !name.isEmpty, "\(offered)")
            #expect(name.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) })
        }
    }

    @Test func longNamesAreCutKeepingTheExtension() {
        let name = FileName(cleaning: String(repeating: "a", count: 300) + ".tar.gz").value
        #expect(name.utf8.count <= FileName.maxBytes)
        #expect(name.hasSuffix(".gz"))
        // Multi-byte characters are never split.
        let korean = FileName(cleaning: String(repeating: "가", count: 200) + ".txt").value
        #expect(korean.utf8.count <= FileName.maxBytes)
        #expect(korean.hasSuffix("가.txt"))
        #expect(korean.unicodeScalars.allSatisfy { $0 == "가" || ".txt".unicodeScalars.contains($0) })
        // An absurd extension is not kept whole.
        let longExt = FileName(cleaning: "x." + String(repeating: "e", count: 250)).value
        #expect(longExt.utf8.count <= FileName.maxBytes)
        // Exactly at the cap: untouched.
        let exact = String(repeating: "b", count: FileName.maxBytes)
        #expect(FileName(cleaning: exact).value == exact)
    }

    @Test func neverOverwrites() {
        let name = FileName(cleaning: "photo.jpg")
        #expect(name.firstFree { _ in false } == "photo.jpg")
        let taken: Set = ["photo.jpg", "photo (2).jpg"]
        #expect(name.firstFree { taken.contains($0) } == "photo (3).jpg")
        #expect(FileName(cleaning: "README").firstFree { $0 == "README" } == "README (2)")
        #expect(name.firstFree(attempts: 3) { _ in true } == nil)
    }
}
