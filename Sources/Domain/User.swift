import Foundation

/// A user's public profile: everything about a user any signed-in user may see. Secrets
/// (password hash, tokens, keys) are deliberately not part of this type.
public struct User: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var email: String
    public var userType: UserType
    /// Lowercase hex SHA-256 of the stored avatar image, or nil.
    public var avatarHash: String?
    public var deactivatedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int

    public init(id: UUID, name: String, email: String, userType: UserType, avatarHash: String?,
                deactivatedAt: Date?, createdAt: Date, updatedAt: Date, version: Int) {
        self.id = id
        self.name = name
        self.email = email
        self.userType = userType
        self.avatarHash = avatarHash
        self.deactivatedAt = deactivatedAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    public var isActive: Bool { deactivatedAt == nil }
    public var isAdmin: Bool { userType == .admin }
}
