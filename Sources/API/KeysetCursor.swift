import Domain
import Foundation
import HTTPServer
import Store

/// The opaque `cursor` of list routes: the order it was made for and the last row's keyset
/// position in that order (`ListOrder`), as base64url JSON.
///
/// The order travels in the cursor because a position means nothing in another order:
/// a cursor sent with a different `order` is refused (400 `invalid_cursor`) instead of
/// silently skipping rows. Cursors from before `order` existed have no `o` and mean
/// `updated_at.asc`, the only order there was.
struct KeysetCursor: Codable, Equatable {
    var order: String?
    var key: Int64?
    var id: UUID

    enum CodingKeys: String, CodingKey {
        case order = "o", key = "u", id = "i"
    }

    init(order: ListOrder, position: KeysetPosition) {
        self.order = order == .updatedAscending ? nil : order.text
        self.key = position.key
        self.id = position.id
    }

    func encoded() -> String {
        OpaqueToken.encode(self)
    }

    var position: KeysetPosition { KeysetPosition(key: key, id: id) }

    /// The request's cursor for a list read in `order`, nil without one. Malformed, made for
    /// another order, or with a key no row of that order can have → 400 `invalid_cursor`.
    static func position(_ context: RequestContext, order: ListOrder = .updatedAscending) throws -> KeysetPosition? {
        guard let text = context.query["cursor"] else { return nil }
        guard text.count <= 512, let cursor = OpaqueToken.decode(KeysetCursor.self, from: text) else {
            throw invalid("The cursor is malformed; start again without it.")
        }
        guard (cursor.order ?? ListOrder.updatedAscending.text) == order.text else {
            throw invalid("The cursor was made for another order; start again without it, or send the order it came with.")
        }
        switch cursor.key {
        case nil where !order.keyIsNullable:
            throw invalid("The cursor is malformed; start again without it.")
        case let key? where !order.keyRange.contains(key):
            throw invalid("The cursor is malformed; start again without it.")
        default:
            return cursor.position
        }
    }

    private static func invalid(_ message: String) -> DomainError {
        DomainError.badRequest(.invalidCursor, message)
    }
}
