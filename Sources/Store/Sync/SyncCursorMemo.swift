import Synchronization

/// The last few cursor texts this process encoded and decoded, so an idle sync does not pay
/// Foundation's JSON coding twice per poll: phones polling an idle feed send the `next_since`
/// they were handed, which is usually the one every other idle poller gets back too (the
/// newest read's snapshot), so a handful of entries answers nearly every poll. Decoding and
/// encoding took a third of an idle sync's instructions (bench/callgrind).
///
/// Pure memoization: an entry is the result of a real `encode` or `decode` of exactly the
/// same input (compared in full, never by hash alone), so a hit returns what the call would
/// have. Bounded: `capacity` entries each way, the oldest dropped first.
final class SyncCursorMemo: Sendable {
    struct Encoded: Sendable {
        let cursor: SyncCursor
        let epoch: String?
        let text: String
    }

    struct Decoded: Sendable {
        let text: String
        let value: (cursor: SyncCursor, epoch: String?)
    }

    static let shared = SyncCursorMemo()

    let capacity: Int
    private let encoded = Mutex<[Encoded]>([])
    private let decoded = Mutex<[Decoded]>([])

    init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// `encode(cursor, epoch)`, from memory when the same pair was encoded recently.
    func text(_ cursor: SyncCursor, epoch: String?, encode: () -> String) -> String {
        if let hit = encoded.withLock({ $0.last { $0.cursor == cursor && $0.epoch == epoch }?.text }) { return hit }
        let text = encode()
        let entry = Encoded(cursor: cursor, epoch: epoch, text: text)
        encoded.withLock { Self.append(entry, to: &$0, capacity: capacity) }
        return text
    }

    /// `decode(text)`, from memory when the same text was decoded recently. Refused texts
    /// are not kept: garbage sent on purpose must not push real cursors out.
    func value(_ text: String, decode: () -> (SyncCursor, String?)?) -> (SyncCursor, String?)? {
        if let hit = decoded.withLock({ $0.last { $0.text == text } }) { return hit.value }
        guard let value = decode() else { return nil }
        let entry = Decoded(text: text, value: value)
        decoded.withLock { Self.append(entry, to: &$0, capacity: capacity) }
        return value
    }

    private static func append<Entry>(_ entry: Entry, to entries: inout [Entry], capacity: Int) {
        if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
        entries.append(entry)
    }
}
