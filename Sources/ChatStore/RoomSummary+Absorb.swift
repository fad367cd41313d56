import ChatCore

/// How the store keeps a room's row current as it inserts (`insertRows`).
extension RoomSummary {
    /// Takes a new message into the summary: newest message, count, and
    /// unread if someone else wrote it after the read marker.
    mutating func absorb(_ message: Message, localNumber: NodeNumber) {
        let cursor = message.cursor
        messageCount += 1
        if lastMessage.map({ cursor > $0 }) ?? true {
            lastMessage = cursor
            lastSenderNickname = message.senderNickname
            // Cut when saved (`ChatStore.save`): a batch of 4096 messages
            // would otherwise cut 4096 previews to keep the last one.
            lastPreview = message.content
        }
        if message.senderNumber != localNumber, readMarker.map({ cursor > $0 }) ?? true {
            unreadCount += 1
        }
        if case .direct(let peer) = room, message.senderNumber == peer {
            peerNickname = message.senderNickname
        }
    }
}
