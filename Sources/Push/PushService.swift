import Domain
import Foundation
import Postgres
import Store
import Sync

/// Devices phones register to be woken, and the outbox of their wake-ups. The sender
/// (`PushSender`) fills the outbox from Sync's change stream and empties it to the providers.
package final class PushService: Sendable {
    package let pool: PostgresPool
    package let devices: PushDeviceStore
    package let outbox: PushOutboxQueue

    package init(pool: PostgresPool) {
        self.pool = pool
        devices = PushDeviceStore(pool: pool)
        outbox = PushOutboxQueue(pool: pool)
    }

    package static let maxTokenBytes = 4096
    package static let maxAppIDBytes = 255

    /// Problems with a registration's token and app id (422 field errors).
    package static func check(token: String?, appID: String?) -> [FieldError] {
        var errors: [FieldError] = []
        if let token {
            let bytes = token.utf8.count
            if bytes < 8 || bytes > maxTokenBytes || token.contains(where: { $0.isWhitespace || $0 == "/" }) {
                errors.append(FieldError(field: "token", code: .invalidValue,
                                         message: "Must be the device token the provider gave the app (8 to 4096 bytes, no spaces or slashes)."))
            }
        }
        if let appID, appID.isEmpty || appID.utf8.count > maxAppIDBytes {
            errors.append(FieldError(field: "app_id", code: .invalidValue, message: "Must be the app's bundle or package id (1 to 255 bytes)."))
        }
        return errors
    }

    /// Registers (or takes over) a token for `user`'s `session`.
    package func register(user: UUID, session: UUID, platform: PushDevice.Platform, token: String, appID: String) throws -> PushDevice {
        try devices.register(user: user, session: session, platform: platform, token: token, appID: appID)
    }

    package func list(user: UUID) throws -> [PushDevice] {
        try devices.list(user: user)
    }

    /// Removes one of `user`'s devices; anyone else's id is "no such device".
    package func remove(user: UUID, id: UUID) throws {
        guard try devices.delete(user: user, id: id) else { throw DomainError.notFound("device") }
    }
}
