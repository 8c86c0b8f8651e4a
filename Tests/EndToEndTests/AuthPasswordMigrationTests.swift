import Credentials
import Foundation
import Testing

/// Hashes written before Argon2id (scrypt N=2^15, r=8, p=3) keep signing in, and the first
/// successful sign-in replaces them with the current Argon2id hash in the same request.
@Suite struct AuthPasswordMigrationTests {
    /// `AuthTestServer.password` hashed the way every release before Argon2id stored it
    /// (computed independently with Python's `hashlib.scrypt`, so this is not our own output).
    static let productionScryptHash =
        "$scrypt$ln=15,r=8,p=3$ZGlzcGF0Y2gtZTJlLXNsdA$xr2VloIE6Cm32fqlG/ma4KFrTKJzVOgB0QCKd25Azag"

    @Test func oldScryptHashSignsInIsRehashedToArgon2idAndSignsInAgain() throws {
        let app = try AuthTestServer()
        try app.auth.users.setPasswordHash(userID: app.admin.id, hash: Self.productionScryptHash)
        _ = try app.login()
        let stored = try #require(try app.auth.users.passwordHash(userID: app.admin.id))
        #expect(stored.hasPrefix("$argon2id$v=19$"))
        #expect(!AuthTestServer.cheapHasher.needsRehash(stored))
        _ = try app.login()
        #expect(try app.auth.users.passwordHash(userID: app.admin.id) == stored)
    }

    /// While a scrypt hash remains, every failed sign-in (unknown address, wrong password on an
    /// old or a new hash) pays for both kinds, so its cost does not say which account exists;
    /// once none remains, failures pay for Argon2id alone. Counted, never timed.
    @Test func failuresCostTheSameWhileOldHashesRemain() throws {
        let app = try AuthTestServer()
        let wrong = ["password": "not the password at all"]
        func fail(_ email: String) throws {
            #expect(try app.request("POST", "/v1/auth/login", json: wrong.merging(["email": email]) { $1 }).status == 401)
        }
        try fail("nobody@example.com")
        try fail(AuthTestServer.adminEmail)
        #expect(app.auth.equalizedFailures == 0)  // no old hash anywhere: nothing to hide
        try app.auth.users.setPasswordHash(userID: app.admin.id, hash: Self.productionScryptHash)
        try fail("nobody@example.com")
        try fail(AuthTestServer.adminEmail)
        #expect(app.auth.equalizedFailures == 2)
        _ = try app.login()  // the last old hash is replaced
        try fail(AuthTestServer.adminEmail)
        #expect(app.auth.equalizedFailures == 2)
    }

    @Test func wrongPasswordAgainstOldScryptHashDoesNotRehash() throws {
        let app = try AuthTestServer()
        try app.auth.users.setPasswordHash(userID: app.admin.id, hash: Self.productionScryptHash)
        let response = try app.request("POST", "/v1/auth/login",
                                       json: ["email": AuthTestServer.adminEmail, "password": "not the password at all"])
        #expect(response.status == 401)
        #expect(try app.auth.users.passwordHash(userID: app.admin.id) == Self.productionScryptHash)
    }
}
