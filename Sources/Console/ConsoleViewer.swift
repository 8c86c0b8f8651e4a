import Domain
import Foundation

/// The signed-in administrator of a console request, with the secret their forms carry.
package struct ConsoleViewer: Sendable {
    package var user: User
    package var sessionID: UUID
    package var csrfToken: String
}
