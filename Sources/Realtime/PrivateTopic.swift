import Foundation

/// The private topics (`config.private: true`) the server knows how to authorize; any other
/// private topic is refused. Who may join each is `RealtimeTopicAccess`'s business.
///
/// Ids are compared as UUIDs, so `user:ABC…` (Swift's `uuidString`) and `user:abc…` (JS) are
/// one room: `room` is the canonical key broadcasts are routed by, across instances too. A
/// private room never shares a key with a public topic of the same name (Supabase keeps them
/// apart the same way), so a public join of `user:<id>` cannot read or reach the private one.
enum PrivateTopic: Equatable, Sendable {
    /// `user:<id>`: that user only.
    case user(UUID)
    /// `listing:<id>`: whoever may see the listing (contract §2).
    case listing(UUID)
    /// `admin` or `admin:<anything>`: admins only.
    case admin(String)

    /// Parses the topic's name (after `realtime:`); nil for a topic no rule covers.
    init?(_ name: String) {
        if name == "admin" {
            self = .admin("")
            return
        }
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let kind = name[..<colon], rest = String(name[name.index(after: colon)...])
        switch kind {
        case "admin":
            guard !rest.isEmpty else { return nil }
            self = .admin(rest)
        case "user":
            guard let id = UUID(uuidString: rest) else { return nil }
            self = .user(id)
        case "listing":
            guard let id = UUID(uuidString: rest) else { return nil }
            self = .listing(id)
        default:
            return nil
        }
    }

    /// The broadcast room: `private:` and the canonical name (topics can never start with it,
    /// since every topic starts with `realtime:`).
    var room: String {
        switch self {
        case .user(let id): "private:user:\(id.uuidString.lowercased())"
        case .listing(let id): "private:listing:\(id.uuidString.lowercased())"
        case .admin(let name): name.isEmpty ? "private:admin" : "private:admin:\(name)"
        }
    }
}
