import Credentials
import Domain
import Foundation
import HTTPServer
import RouteKit
import Store

/// Sign-in and password change: everything that runs the KDF, so callers run these on
/// `passwordWork`. The throttle is checked right before the KDF, so a burst queued behind one
/// account sees the failures recorded ahead of it.
extension AuthService {
    /// Checks the throttle and the password and opens a session. Throws 429 `rate_limited` and
    /// 401 `invalid_credentials` (the `/auth/v1` renderer translates both to GoTrue's codes).
    /// A device that signed in to this account before (`client.deviceToken`) is throttled on
    /// its own budget; a success (re)sets the device cookie.
    package func signIn(email: String, password: String, client: ClientInfo) throws -> SignedIn {
        let address = client.address
        let known = try knownDevice(client.deviceToken, email: email)
        if let wait = try throttle.retryAfter(email: email, clientAddress: address, knownDevice: known?.hash) {
            throw Self.rateLimited(wait, "Too many failed sign-in attempts.")
        }
        // Unknown email, missing password, wrong password and deactivated account all cost one
        // KDF run and give the same answer, so neither timing nor wording reveals accounts.
        let found = try users.findCredentials(email: email)
        let storedHash = found?.passwordHash ?? dummyPasswordHash
        let matches = hasher.verify(password, against: storedHash) && found?.passwordHash != nil
        guard let user = found?.user, matches, user.isActive else {
            try equalizeFailureCost(password, ranLegacy: hasher.isLegacy(storedHash))
            recordLoginFailure()
            try throttle.record(email: email, clientAddress: address, knownDevice: known?.hash, succeeded: false)
            throw HTTPError(status: .unauthorized, code: ErrorCode.invalidCredentials.rawValue, message: "The email or password is incorrect.",
                            extraHeaders: ["WWW-Authenticate": "Bearer"])
        }
        try throttle.record(email: email, clientAddress: address, knownDevice: known?.hash, succeeded: true)
        if hasher.needsRehash(storedHash) {
            try users.setPasswordHash(userID: user.id, hash: try hasher.hash(password), onlyIfCurrent: storedHash)
        }
        // A token presented for another account (a shared computer) or never issued is
        // replaced: only a token this account's own sign-in produced becomes its device.
        let deviceToken = try known?.token ?? SecureRandom.token()
        try signInDevices.remember(tokenHash: DeviceCookie.hash(deviceToken), userID: user.id)
        var signedIn = try pool.withConnection { try openSession(user, client, passwordResetFor: nil, passwordVerified: true, on: $0) }
        signedIn.deviceCookie = deviceCookie.header(deviceToken)
        return signedIn
    }

    /// Until every account has signed in once since passwords moved to Argon2id, a wrong
    /// password against an old scrypt hash costs far more than one against an Argon2id hash or
    /// an unknown address, which would tell an attacker the account exists. While any legacy
    /// hash remains, every failure pays for both kinds.
    private func equalizeFailureCost(_ password: String, ranLegacy: Bool) throws {
        guard try users.legacyPasswordHashesRemain() else { return }
        equalizedFailureCount.add(1, ordering: .relaxed)
        if ranLegacy {
            _ = hasher.verify(password, against: dummyPasswordHash)
        } else {
            hasher.simulateLegacyVerification(password)
        }
    }

    /// The device token and its hash, when the device signed in to this account before.
    private func knownDevice(_ token: String?, email: String) throws -> (token: String, hash: String)? {
        guard let token else { return nil }
        let hash = DeviceCookie.hash(token)
        return try signInDevices.isKnown(tokenHash: hash, email: email) ? (token, hash) : nil
    }

    /// A new password ends every other session: whoever knew the old one is signed out, the
    /// device making the change stays signed in. Wrong `current` guesses count toward the
    /// account's sign-in limits (same table, same keys), so a stolen access token cannot be
    /// turned into unlimited password guessing.
    package func changePassword(_ user: User, to password: String, current: String, client: ClientInfo) throws {
        try verifyCurrentPassword(user, current, client: client)
        try users.setPasswordHash(userID: user.id, hash: try hasher.hash(password))
        try endSessions(of: user.id, except: client.principal?.sessionID, reason: .passwordChanged)
    }

    /// Renames the user and/or sets or clears the avatar (`avatarHash`: nil unchanged,
    /// `.some(nil)` cleared); the user as it is afterwards.
    package func rename(_ user: User, to name: String?, avatarHash: String?? = nil) throws -> User {
        guard name != nil || avatarHash != nil,
              let updated = try users.update(id: user.id, changes: .init(name: name, avatarHash: avatarHash))?.user
        else { return user }
        return updated
    }

    package static let currentPasswordIncorrect = JSONRequestBody.validationFailed([
        FieldError(field: "current_password", code: .incorrect, message: "Does not match the current password.")])

    /// Checks `current` against the user's password (throttled like sign-in; a wrong one is
    /// recorded as a failure): 422 `current_password` incorrect, or 429.
    package func verifyCurrentPassword(_ user: User, _ current: String, client: ClientInfo) throws {
        if let wait = try throttle.retryAfter(email: user.email, clientAddress: client.address) {
            throw Self.rateLimited(wait, "Too many wrong current passwords.")
        }
        guard let stored = try users.passwordHash(userID: user.id), hasher.verify(current, against: stored) else {
            try throttle.record(email: user.email, clientAddress: client.address, succeeded: false)
            throw Self.currentPasswordIncorrect
        }
    }

    package static func rateLimited(_ wait: Int, _ message: String) -> HTTPError {
        HTTPError(status: .tooManyRequests, code: ErrorCode.rateLimited.rawValue, message: "\(message) Try again in \(wait) seconds.",
                  extraHeaders: ["Retry-After": String(wait)])
    }

    package static func mailRateLimited(_ wait: Int) -> HTTPError {
        HTTPError(status: .tooManyRequests, code: ErrorCode.emailRateLimited.rawValue,
                  message: "For security purposes, a mail to this address can only be requested again after \(wait) seconds.",
                  extraHeaders: ["Retry-After": String(wait)])
    }
}
