import Domain
import Foundation

/// The signed-in administrator of a console request, with the secret their forms carry.
public struct ConsoleViewer: Sendable {
    public var user: User
    public var sessionID: UUID
    public var csrfToken: String
}
