/// Which group of the chat list a date falls in. Its order (`<`) is the
/// display order, newest first: Today, Yesterday, the months of the current
/// year from the latest back to January, earlier years from the latest back,
/// then rooms with no messages at all. The order is an explicit rank, never
/// the label: sorting labels put "2024" above "January 2025".
public enum ChatListPeriod: Hashable, Sendable, Comparable {
    case today
    case yesterday
    /// A month of the current year, other than today and yesterday.
    case month(year: Int, month: Int)
    /// An earlier year.
    case year(Int)
    /// No date at all (a conversation with no messages yet).
    case undated

    /// Tier first, then newest first within the tier.
    private var rank: (tier: Int, key: Int) {
        switch self {
        case .today: (0, 0)
        case .yesterday: (1, 0)
        case .month(let year, let month): (2, -(year * 12 + month))
        case .year(let year): (3, -year)
        case .undated: (4, 0)
        }
    }

    public static func < (lhs: ChatListPeriod, rhs: ChatListPeriod) -> Bool {
        lhs.rank < rhs.rank
    }

    /// The group's label: Today / Yesterday / February / 2024 in English,
    /// 오늘 / 어제 / 02월 / 2024년 in Korean.
    public func title(in language: ChatListGrouping.Language) -> String {
        switch (self, language) {
        case (.today, .english): "Today"
        case (.today, .korean): "오늘"
        case (.yesterday, .english): "Yesterday"
        case (.yesterday, .korean): "어제"
        case (.month(_, let month), .english): Self.englishMonths[(month - 1 + 12) % 12]
        case (.month(_, let month), .korean): (month < 10 ? "0" : "") + "\(month)월"
        case (.year(let year), .english): String(year)
        case (.year(let year), .korean): "\(year)년"
        case (.undated, .english): "No messages"
        case (.undated, .korean): "메시지 없음"
        }
    }

    // Spelled out rather than taken from a DateFormatter so the labels do
    // not depend on the platform's locale data.
    private static let englishMonths = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]
}
