/// The `--help` and `--version` texts.
public enum HelpText {
    public static let version = "lanchat 0.1.0 (protocol 1)"

    /// `/help` at the prompt.
    public static let consoleHelp = """
      text            send to the open room (public at start; "//x" sends "/x")
      /dm NAME TEXT   direct message; the first one asks NAME to accept
      /accept NAME    accept a DM request        /decline NAME  decline it
      /open ROOM      switch room: public, or a peer's name (clears its unread)
      /peers          who is linked              /rooms         conversations
      /unread         rooms with unread messages /nick NAME     change nickname
      /history [ROOM] the open room's history around the "read up to here" marker
      /more [up|down] page older or newer        /read          mark read up to here
      /filter [all|none|STAGE]  which stages /peers and the public room show
      /stats          frame counters             /quit          leave (also Ctrl-D)
      NAME is a nickname, nickname#tag when two peers share it, or a node number.
    """

    public static let usage = """
    OVERVIEW: a LAN peer-to-peer chat node

    Finds the other nodes on the LAN by UDP broadcast, links to each over TCP,
    and chats in one public room and 1:1 direct messages. History is kept in a
    local SQLite database.

    USAGE: lanchat [options]                  chat at the terminal
           lanchat --json [options]           JSON lines: events out, commands in
           lanchat bot echo [options]         answer DMs with an automatic echo
           lanchat bot chatter [--rate N] [--count N] [options]
                                              steady automatic public traffic

    OPTIONS:
      -n, --nick NAME          nickname shown to peers (default: $USER)
          --stage NAME         stage label peers can filter by (default: none)
      -p, --port N             TCP port for peer links (default: 0, any free port)
          --discovery-port N   UDP port shared by all nodes (default: 47474)
      -b, --broadcast ADDR     broadcast beacons to ADDR; repeatable; replaces the
                               default scope (also LANCHAT_BROADCAST=a,b)
          --peer HOST:PORT     link to this node directly, where broadcast does
                               not reach (docker bridges, VPNs); repeatable
      -d, --data-dir PATH      history and identity (default:
                               $XDG_DATA_HOME/lanchat/NICK, ~/.local/share/...)
          --in-memory          keep no history on disk (the default for bots)
          --max-history MIB    cap the history file; past it new messages are
                               refused as on a full disk (default: no cap)
          --beacon-interval S  seconds between beacons (default: 2)
          --locale en|ko       language of dates and group labels (default: en)
          --log-level LEVEL    trace, debug, info, notice, warning, error
                               (default: notice; logs go to stderr)
          --rate N             chatter bot: messages per second (default: 1)
          --count N            chatter bot: stop after N messages
      -h, --help               show this help
          --version            show the version

    DEFAULT SCOPE:
      Beacons go to 127.255.255.255 (other nodes on this host) and to the
      broadcast address of every up IPv4 interface with a private (10/8,
      172.16/12, 192.168/16) or link-local (169.254/16) address. Nothing else,
      unless --broadcast names it.

    AT THE PROMPT:
      a line of text goes to the open room (public at start)
      /dm NAME TEXT   /accept NAME   /decline NAME   /open ROOM   /peers
      /rooms   /unread   /history [ROOM]   /more [up|down]   /read
      /filter [all|none|STAGE]   /nick NAME   /stats   /help   /quit

    EXAMPLES:
      lanchat --nick alice                      # terminal 1
      lanchat --nick bob                        # terminal 2: they chat
      lanchat --json --nick script --in-memory  # drive a node from a program
      lanchat bot echo --nick echo --in-memory

    Exit status: 0 on a clean quit (also on SIGINT/SIGTERM), 64 on bad usage,
    1 when the node cannot start.
    """
}
