import ChatCore

/// The `--help` and `--version` texts.
public enum HelpText {
    /// Derived from the wire format, so the two cannot drift apart again.
    public static let version = "lanchat 0.1.0 (protocol \(P2PPayload.protocolVersion))"

    /// `/help` at the prompt.
    public static let consoleHelp = """
      text            send to the open room, named in the prompt ("//x" sends "/x")
      /open ROOM      switch room (public, or a peer's name) and show it from
                      where you stopped reading, at the "── unread ──" line
      /dm NAME TEXT   direct message; the first one asks NAME to accept
                      (/dm NAME alone opens the conversation, like /open)
      /accept NAME    accept a DM request        /decline NAME  decline it
      /peers          who is linked, then who else is heard on the LAN
      /rooms          conversations
      /whois NAME     a peer's node number, address, key fingerprint and trust
      /verify NAME    the safety number to compare with NAME (same on both
                      screens); /verify NAME ok marks the key verified (✓)
                      and sends the DMs held for its change; /discard NAME
                      drops them (they stay in the conversation, unsent)
      /unread         rooms with unread messages /read          mark read up to here
      /history [ROOM] show a room from its read marker; never switches rooms
      /more [up|down] page older or newer in what /open or /history showed
      /filter [all|none|STAGE|stage:NAME]  which stages /peers and #public show
                      (stage:NAME names a stage called "all" or "none")
      /nick NAME      change nickname (no spaces)  /stats  frame counters
      /search WORDS   find text in every room's history (public and DMs),
                      newest first, 50 at a time; literal, any case for
                      Latin letters; /search alone shows the next 50
      /jump N         open result N's room on the page around it (full
                      screen: arrows choose, Enter opens, Ctrl-R lists again)
      /send NAME PATH offer a file to NAME (it must be linked; the receiver
                      accepts or declines; bytes go on a link of their own)
      /accept-file ID /decline-file ID  answer an offer (ID: its last 8 digits)
      /cancel-file ID stop a transfer either way     /files  list transfers
      /quit           leave (also Ctrl-D)
      NAME            a nickname, nickname#tag when two peers share it, #tag,
                      or a node number
      reading         messages count as read once shown here (or by /read); a
                      room you have not opened keeps its unread count
    """

    public static let usage = """
    OVERVIEW: a LAN peer-to-peer chat node

    Finds the other nodes on the LAN by UDP broadcast, links to each over TCP,
    and chats in one public room and 1:1 direct messages. History is kept in a
    local SQLite database.

    USAGE: lanchat [options]                  chat at the terminal (full screen)
           lanchat --plain [options]          the line console instead
           lanchat --json [options]           JSON lines: events out, commands in
           lanchat bot echo [options]         answer DMs with an automatic echo
           lanchat bot chatter [--rate N] [--count N] [options]
                                              steady automatic public traffic

    OPTIONS:
      -n, --nick NAME          nickname shown to peers, no spaces (default: $USER)
          --stage NAME         stage label peers can filter by, with /filter NAME
                               or /filter stage:NAME (default: none)
      -p, --port N             TCP port for peer links (default: 0, any free port)
          --discovery-port N   UDP port shared by all nodes (default: 47474)
      -b, --broadcast ADDR     broadcast beacons to ADDR; repeatable; replaces the
                               default scope (also LANCHAT_BROADCAST=a,b)
          --peer HOST:PORT     link to this node directly, where broadcast does
                               not reach (docker bridges, VPNs); repeatable
      -d, --data-dir PATH      history and identity (default:
                               $XDG_DATA_HOME/lanchat/NICK, ~/.local/share/...)
          --in-memory          keep no history on disk (the default for bots)
          --secret-file PATH   private group: link only to nodes with the same
                               secret file (also LANCHAT_SECRET_FILE=PATH)
          --download-dir PATH  where accepted files are saved, mode 0600
                               (default: $XDG_DOWNLOAD_DIR/lanchat, else
                               ~/Downloads/lanchat; also LANCHAT_DOWNLOAD_DIR)
          --file-rate KIB      cap what each file this node sends takes, in KiB/s
                               (default: no cap; TCP's own pace)
          --max-history MIB    cap the history files (write-ahead log within
                               1 MiB or 1/4 more); strangers' oldest messages
                               age out first (default: no cap)
          --max-peer-history MIB
                               what one known peer's messages may take, and
                               all strangers' together (default: 1/8 of
                               --max-history, at most 64)
          --min-disk-free MIB|N%
                               disk space the history leaves free; below it
                               strangers' oldest messages age out instead
                               (default: 1% or 50 MiB, whichever is larger)
          --beacon-interval S  seconds between beacons (default: 2); past 20
                               nodes they grow with the LAN, up to 15 times this
          --locale en|ko       language of dates and group labels (default: en)
          --no-mouse           full screen: no mouse reports, so the terminal's own
                               selection works (the wheel and clicks do nothing)
          --log-level LEVEL    trace, debug, info, notice, warning, error
                               (default: notice; logs go to stderr, or in the
                               full-screen client to lanchat.log in the data
                               directory, 1 MiB then lanchat.log.1, and /log)
          --no-bell            full screen: no terminal bell for DMs and
                               messages naming you (still highlighted)
          --rate N             chatter bot: messages per second (default: 1)
          --count N            chatter bot: stop after N messages
      -h, --help               show this help
          --version            show the version

    DEFAULT SCOPE:
      Beacons go to 127.255.255.255 (other nodes on this host) and to the
      broadcast address of every up IPv4 interface with a private (10/8,
      172.16/12, 192.168/16) or link-local (169.254/16) address. Nothing else,
      unless --broadcast names it.

    ENVIRONMENT (for containers; a flag on the command line wins):
      LANCHAT_NICK, LANCHAT_STAGE, LANCHAT_PORT, LANCHAT_DISCOVERY_PORT,
      LANCHAT_DATA_DIR, LANCHAT_LOG_LEVEL   like the option of the same name
      LANCHAT_BROADCAST=a,b   like --broadcast
      LANCHAT_PEERS=h:p,h:p   like --peer (flags add to the list)
    
    IN THE FULL-SCREEN CLIENT:
      A room opens at its "── unread ──" line; a message counts as read once
      it has been on screen in full for half a second. DMs and messages that
      name you ring the bell, count in the terminal title and show as !N in
      the list. Logs go to lanchat.log in the data directory (/log shows
      them), never over the screen; Ctrl-L redraws everything.

    AT THE PROMPT:
      a line of text goes to the open room (public at start)
      /dm NAME TEXT   /accept NAME   /decline NAME   /open ROOM   /peers
      /whois NAME   /rooms   /unread   /history [ROOM]   /more [up|down]   /read
      /filter [all|none|STAGE|stage:NAME]   /nick NAME   /stats   /help   /quit
      /verify NAME [ok]   (the safety number to compare; ok marks NAME verified)
      /discard NAME   (drops the DMs held because NAME's verified key changed)
      /search WORDS   /jump N   (find text in all history; open a result)
      /send NAME PATH   /accept-file ID   /decline-file ID   /cancel-file ID
      /files   (offer a file, answer an offer, list transfers)
      The prompt names the open room; /open (or /dm NAME alone) changes it.
      A room opens at its "── unread ──" line, and messages count as read once
      shown.

    FULL-SCREEN KEYS (F1, or ? on an empty line, shows them in the client):
      move      Left/Right, Home/End, Ctrl-A/E, Alt-B/F, Ctrl-Left/Right
      delete    Backspace, Delete, Ctrl-K/U/W, Alt-D; Ctrl-Y puts it back
      Up/Down   this room's earlier lines   Tab  complete a name or /command
      scroll    PgUp/PgDn, Alt-Up/Down (a message), Alt-Home/End
      rooms     Alt-Left/Right, Ctrl-P/N, Alt-1..9, Tab on an empty line
      Alt-A     next room with unread   Ctrl-L  redraw   Ctrl-C  quit
      A paste stays in the input (line breaks shown as ↵) until Enter.

    EXAMPLES:
      lanchat --nick alice                      # terminal 1
      lanchat --nick bob                        # terminal 2: they chat
      lanchat --json --nick script --in-memory  # drive a node from a program
      lanchat bot echo --nick echo --in-memory

    Exit status: 0 on a clean quit (also on SIGINT/SIGTERM), 64 on bad usage,
    1 when the node cannot start.
    """
}
