/// One group of the chat list: its period, its label, and its items newest
/// first.
public struct ChatListGroup<Item> {
    public var period: ChatListPeriod
    public var title: String
    public var items: [Item]

    public init(period: ChatListPeriod, title: String, items: [Item]) {
        self.period = period
        self.title = title
        self.items = items
    }
}

extension ChatListGroup: Sendable where Item: Sendable {}
extension ChatListGroup: Equatable where Item: Equatable {}
extension ChatListGroup: Hashable where Item: Hashable {}
