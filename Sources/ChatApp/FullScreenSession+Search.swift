import ChatCore
import ChatNode
import ChatScreen
import ChatStore

extension FullScreenSession {
    /// A page of `/search` results as the screen lists them: rooms and
    /// senders named as the side list and the node name them.
    func searchEvent(_ results: SearchResults, first: Int) -> ScreenEvent {
        let items = results.hits.map { hit in
            let message = hit.message
            let room: String
            if let peer = message.room.peer {
                room = "@" + (state.side[message.room]?.title ?? "#" + peer.shortTag)
            } else {
                room = "#public"
            }
            let sender = node.displayName(for: message.senderNumber, nickname: message.senderNickname)
            return SearchList.Item(message, roomLabel: room, sender: sender, calendar: state.calendar)
        }
        return .searchResults(query: results.query.text, items: items, hasMore: results.continueBefore != nil, first: first)
    }
}
