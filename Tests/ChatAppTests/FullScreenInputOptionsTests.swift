import ChatScreen
import ChatApp
import Testing

/// The command line and help side of the full-screen client's input:
/// `--no-mouse`, the key list in --help, and Tab's command list.
@Suite struct FullScreenInputOptionsTests {
    @Test func noMouseTurnsMouseReportsOff() throws {
        #expect(try CommandLineParser().parse([]).mouse)
        #expect(try !CommandLineParser().parse(["--no-mouse"]).mouse)
    }

    @Test func helpNamesTheOptionAndTheKeys() {
        #expect(HelpText.usage.contains("--no-mouse"))
        for key in ["Ctrl-K/U/W", "Alt-A", "PgUp/PgDn", "Alt-1..9", "F1"] { #expect(HelpText.usage.contains(key), "\(key)") }
    }

    /// Tab offers only commands the console's parser knows, and every one
    /// it knows: a command added there must be added to Tab's list too.
    @Test func tabCompletesExactlyTheParsersCommands() throws {
        // /log is the full-screen session's own (its log view), not the parser's.
        for command in TabCompletion.commands where command != "/log" {
            do {
                _ = try ConsoleCommandParser.parse(command + (command == "/jump" ? " 1" : " bob hello"))
            } catch {
                #expect(!error.message.contains("unknown command"), "\(command)")
            }
        }
        for verb in ["dm", "accept", "decline", "open", "peers", "whois", "rooms", "unread", "nick", "history", "more", "read", "filter", "stats", "help", "quit", "search", "jump",
                     "send", "accept-file", "decline-file", "cancel-file", "files"] {
            #expect(TabCompletion.commands.contains("/" + verb), "/\(verb)")
        }
    }

    /// Every command --help lists for the full-screen prompt completes
    /// with Tab (the file commands were once missing).
    @Test func tabKnowsEveryCommandTheHelpListsAtThePrompt() throws {
        let usage = HelpText.usage
        let start = try #require(usage.range(of: "AT THE PROMPT:"))
        let section = String(usage[start.upperBound...]).components(separatedBy: "\n\n")[0]
        let listed = Set(section.split(whereSeparator: { !($0.isLetter || $0 == "/" || $0 == "-") })
            .filter { $0.hasPrefix("/") && $0.count > 1 }.map(String.init))
        #expect(listed.count >= 20, "found \(listed.sorted())")
        #expect(listed.subtracting(TabCompletion.commands).isEmpty, "missing from Tab: \(listed.subtracting(TabCompletion.commands).sorted())")
    }
}
