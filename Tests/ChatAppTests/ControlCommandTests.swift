import ChatApp
import Testing

@Suite struct ControlCommandTests {
    @Test func consoleLines() throws {
        #expect(try ConsoleCommandParser.parse("hello there") == .say("hello there", room: nil, automatic: false))
        #expect(try ConsoleCommandParser.parse("   ") == nil)
        #expect(try ConsoleCommandParser.parse("//slash") == .say("/slash", room: nil, automatic: false))
        #expect(try ConsoleCommandParser.parse("/dm bob hi there") == .dm(to: "bob", text: "hi there", automatic: false))
        #expect(try ConsoleCommandParser.parse("/accept bob#3f2a") == .accept("bob#3f2a"))
        #expect(try ConsoleCommandParser.parse("/decline bob") == .decline("bob"))
        #expect(try ConsoleCommandParser.parse("/open public") == .open("public"))
        #expect(try ConsoleCommandParser.parse("/dm bob") == .open("bob"))
        #expect(try ConsoleCommandParser.parse("/msg bob ") == .open("bob"))
        #expect(try ConsoleCommandParser.parse("/peers") == .peers)
        #expect(try ConsoleCommandParser.parse("/rooms") == .rooms)
        #expect(try ConsoleCommandParser.parse("/unread") == .unread)
        #expect(try ConsoleCommandParser.parse("/nick carol") == .nick("carol"))
        #expect(try ConsoleCommandParser.parse("/QUIT") == .quit)
        #expect(try ConsoleCommandParser.parse("/help") == .help)
    }

    @Test func badConsoleLines() {
        #expect(throws: UsageError("usage: /dm NAME [TEXT]")) { try ConsoleCommandParser.parse("/dm") }
        #expect(throws: UsageError("unknown command /fly; /help lists them")) { try ConsoleCommandParser.parse("/fly") }
        #expect(throws: UsageError("/accept needs a NAME")) { try ConsoleCommandParser.parse("/accept") }
        #expect(throws: UsageError("empty command; /help lists them")) { try ConsoleCommandParser.parse("/") }
    }

    @Test func jsonLines() throws {
        let send = try JSONCommandParser.parse(#"{"cmd":"send","text":"hi","id":7}"#)
        #expect(send.command == .say("hi", room: nil, automatic: false))
        #expect(send.requestID == "7")
        #expect(try JSONCommandParser.parse(#"{"cmd":"dm","to":"bob","text":"x","automatic":true}"#).command
                == .dm(to: "bob", text: "x", automatic: true))
        #expect(try JSONCommandParser.parse(#"{"cmd":"dm","to":12345,"text":"x"}"#).command == .dm(to: "12345", text: "x", automatic: false))
        #expect(try JSONCommandParser.parse(#"{"cmd":"accept","peer":"bob"}"#).command == .accept("bob"))
        #expect(try JSONCommandParser.parse(#"{"cmd":"quit","id":"q"}"#).requestID == "q")
        // A file command's "id" names the transfer; "tag" tags the request.
        let transfer = "01934c04-c00a-7a00-9b00-000000000010"
        let accept = try JSONCommandParser.parse(#"{"cmd":"acceptFile","id":"\#(transfer)","tag":"a1"}"#)
        #expect(accept.command == .acceptFile(transfer))
        #expect(accept.requestID == "a1")
        #expect(try JSONCommandParser.parse(#"{"cmd":"cancelFile","id":"\#(transfer)"}"#).requestID == transfer)
        #expect(try JSONCommandParser.parse(#"{"cmd":"stats","tag":3}"#).requestID == "3")
    }

    @Test(arguments: [
        ("not json", "not a JSON object"),
        ("[1,2]", "not a JSON object"),
        (#"{"text":"hi"}"#, "missing string field \"cmd\""),
        (#"{"cmd":"send"}"#, "send: missing string field \"text\""),
        (#"{"cmd":"send","text":5}"#, "send: missing string field \"text\""),
        (#"{"cmd":"launch"}"#, "unknown cmd \"launch\""),
    ])
    func badJSONLinesAreNamed(line: String, message: String) {
        #expect(throws: UsageError(message)) { try JSONCommandParser.parse(line) }
    }
}
