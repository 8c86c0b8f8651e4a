import Domain
import Foundation
import HTTPServer
import Store

/// The opaque `cursor` of every list route — listings, tasks, activities, history, notes,
/// subtasks: the order it was made for and the last row's keyset position in that order, as
/// base64url JSON `{"o","u","i"}`. One encoding for all of them.
///
/// The order travels in the cursor because a position means nothing in another order:
/// a cursor sent with a different `order` (or to another kind of list) is refused (400
/// `invalid_cursor`) instead of silently skipping rows. Cursors from before `order` existed
/// have no `o` and mean `updated_at.asc`, the only order there was. Note and subtask lists
/// used to hand out `{"key","id"}`; such a cursor is still read by those lists, in the one
/// order each has, so a client paging across an upgrade is not sent back to the start.
package struct KeysetCursor: Codable, Equatable {
    package var order: String?
    package var key: Int64?
    package var id: UUID

    package enum CodingKeys: String, CodingKey {
        case order = "o", key = "u", id = "i"
    }

    package init(order: ListOrder, position: KeysetPosition) {
        self.init(orderText: order == .updatedAscending ? nil : order.text, position: position)
    }

    /// A cursor of a list whose order is not a `ListOrder` (a child list's only order).
    package init(orderText: String?, position: KeysetPosition) {
        self.order = orderText
        self.key = position.key
        self.id = position.id
    }

    package func encoded() -> String {
        OpaqueToken.encode(self)
    }

    package var position: KeysetPosition { KeysetPosition(key: key, id: id) }

    /// The request's cursor for a list read in `order`, nil without one. Malformed, made for
    /// another order, or with a key no row of that order can have → 400 `invalid_cursor`.
    package static func position(_ context: RequestContext, order: ListOrder = .updatedAscending) throws -> KeysetPosition? {
        try position(context, orderText: order.text, keyRange: order.keyRange, keyIsNullable: order.keyIsNullable)
    }

    /// The same for a list in the order `orderText` whose keys lie in `keyRange`;
    /// `readsChildCursors`: the list also reads the `{"key","id"}` cursors child lists used to hand out.
    package static func position(_ context: RequestContext, orderText: String, keyRange: ClosedRange<Int64>,
                         keyIsNullable: Bool, readsChildCursors: Bool = false) throws -> KeysetPosition? {
        guard let text = context.query["cursor"] else { return nil }
        guard text.count <= 512 else { throw invalid("The cursor is malformed; start again without it.") }
        guard let cursor = OpaqueToken.decode(KeysetCursor.self, from: text) else {
            if readsChildCursors, let old = OpaqueToken.decode(ChildCursor.self, from: text), keyRange.contains(old.key) {
                return KeysetPosition(key: old.key, id: old.id)
            }
            throw invalid("The cursor is malformed; start again without it.")
        }
        guard (cursor.order ?? ListOrder.updatedAscending.text) == orderText else {
            throw invalid("The cursor was made for another order; start again without it, or send the order it came with.")
        }
        switch cursor.key {
        case nil where !keyIsNullable:
            throw invalid("The cursor is malformed; start again without it.")
        case let key? where !keyRange.contains(key):
            throw invalid("The cursor is malformed; start again without it.")
        default:
            return cursor.position
        }
    }

    private static func invalid(_ message: String) -> DomainError {
        DomainError.badRequest(.invalidCursor, message)
    }

    /// The former note/subtask cursor, read only (never written any more).
    private struct ChildCursor: Decodable {
        var key: Int64
        var id: UUID
    }
}
