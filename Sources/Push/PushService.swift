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
