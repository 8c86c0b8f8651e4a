import Credentials
import Foundation
import Postgres

/// Codes and links sent by e-mail (migration 0021). Every call takes the caller's connection
/// inside its transaction: a token is issued in the same transaction as the mail that carries
/// it, and a verification commits its outcome (used, or one more wrong try) together with the
/// session it opens.
///
/// The rules, with numbers:
/// - a code is 6 digits from the CSPRNG, a link token 256 random bits; both stored only as
///   keyed hashes (`EmailTokenKeys`);
/// - one live token per user and purpose: a new mail voids the previous one;
/// - single use: a code or its link ends the row;
/// - `lifetime` (15 minutes by default, AUTH_EMAIL_TOKEN_TTL);
/// - wrong codes are counted per code, per source and per account (`EmailCodeBudget`); a
///   wrong guess never voids a code or a link.
public struct EmailTokenStore: Sendable {
    public static let defaultLifetime: Duration = .seconds(15 * 60)
    /// How long a PKCE code from a link waits for the app's exchange (GoTrue: 5 minutes).
    public static let pkceCodeLifetime: Duration = .seconds(5 * 60)

    let keys: EmailTokenKeys
    public let lifetime: Duration

    public init(keys: EmailTokenKeys, lifetime: Duration = EmailTokenStore.defaultLifetime) {
        self.keys = keys
        self.lifetime = lifetime
    }

    public struct Challenge: Sendable, Equatable {
        public var value: String
        public var method: PKCE.Method
        public init(value: String, method: PKCE.Method) {
            self.value = value
            self.method = method
        }
    }

    /// What a mail carries: the code to type and the token of the link (GoTrue's token_hash).
    public struct Issued: Sendable {
        public var code: String
        public var linkToken: String
    }

    /// A token that verified: whose, for what, sent where, and its PKCE challenge if any.
    public struct Verified: Sendable {
        public var userID: UUID
        public var purpose: EmailTokenPurpose
        public var email: String
        public var challenge: Challenge?
    }

    private var lifetimeSeconds: Int64 { max(1, lifetime.components.seconds) }

    /// Issues a new code and link, voiding any live one of the same user and purpose.
    public func issue(userID: UUID, purpose: EmailTokenPurpose, email: String, challenge: Challenge?,
                      on connection: PostgresConnection) throws -> Issued {
        let id = UUID()
        let code = try OneTimeCode.make()
        // PKCE links carry GoTrue's prefix, which is how GET /verify tells the two flows apart.
        let linkToken = (challenge == nil ? "" : "pkce_") + (try SecureRandom.token())
        try connection.execute("""
            UPDATE auth_email_tokens SET used_at = now()
            WHERE user_id = \(userID) AND purpose = \(purpose.rawValue) AND used_at IS NULL
            """)
        try connection.execute("""
            INSERT INTO auth_email_tokens (id, user_id, purpose, email, code_hash, link_hash, code_challenge,
                                           code_challenge_method, expires_at)
            VALUES (\(id), \(userID), \(purpose.rawValue), \(email), \(keys.codeHash(tokenID: id, code: code)),
                    \(keys.linkHash(linkToken)), \(challenge?.value), \(challenge?.method.rawValue),
                    now() + make_interval(secs => \(lifetimeSeconds)))
            """)
        if Int.random(in: 0..<100) == 0 {
            try connection.execute("DELETE FROM auth_email_tokens WHERE expires_at < now() - interval '1 day'")
        }
        return Issued(code: code, linkToken: linkToken)
    }

    /// What `issue` does, for an address that gets no mail: the same code, link token and
    /// keyed hashes, and the same two statements, which touch no row (the void finds nothing,
    /// the insert selects nothing). The answer must not tell known addresses from unknown
    /// ones, by content or by time.
    public func dryIssue(purpose: EmailTokenPurpose, on connection: PostgresConnection) throws -> Issued {
        let id = UUID()
        let code = try OneTimeCode.make()
        let linkToken = try SecureRandom.token()
        try connection.execute("""
            UPDATE auth_email_tokens SET used_at = now()
            WHERE user_id = \(id) AND purpose = \(purpose.rawValue) AND used_at IS NULL
            """)
        try connection.execute("""
            INSERT INTO auth_email_tokens (id, user_id, purpose, email, code_hash, link_hash, expires_at)
            SELECT \(id), u.id, \(purpose.rawValue), u.email, \(keys.codeHash(tokenID: id, code: code)), \(keys.linkHash(linkToken)),
                   now() + make_interval(secs => \(lifetimeSeconds))
            FROM users u WHERE u.id = \(id)
            """)
        return Issued(code: code, linkToken: linkToken)
    }

    /// The address of the user's latest unconfirmed address change, for a resend. An expired
    /// change is over: resending it would revive a change nobody confirmed in time.
    public static func pendingEmailChange(userID: UUID, on connection: PostgresConnection) throws -> String? {
        try connection.query("""
            SELECT email FROM auth_email_tokens
            WHERE user_id = \(userID) AND purpose = \(EmailTokenPurpose.emailChange.rawValue) AND used_at IS NULL
              AND expires_at > now()
            ORDER BY created_at DESC LIMIT 1
            """).first?.decode("email")
    }

    /// What a typed code came to.
    public enum CodeCheck: Sendable {
        case verified(Verified)
        /// No live code of `purposes` that this source may still try matched.
        case wrong
        /// The source sent too many wrong codes lately (`EmailCodeBudget.perSource`).
        case sourceLimited(retryAfter: Int)
    }

    /// The live row of `purposes` for `email` (the address the mail went to, or the account's
    /// current one) whose code is `code`, tried only against the rows `source` may still test
    /// (`EmailCodeBudget`). A miss is recorded against every row it was tested against; the
    /// caller must commit even when it answers an error.
    public func verifyCode(email: String, code: String, purposes: [EmailTokenPurpose], source: String,
                           on connection: PostgresConnection) throws -> CodeCheck {
        if let wait = try EmailCodeBudget.sourceWait(source, on: connection) { return .sourceLimited(retryAfter: wait) }
        // Every live row of the account is locked, whatever its purpose, so concurrent guesses
        // at one account are counted one after the other against its budget.
        let rows = try connection.query("""
            SELECT t.id, t.user_id, t.purpose, t.email, t.code_hash, t.code_challenge, t.code_challenge_method
            FROM auth_email_tokens t JOIN users u ON u.id = t.user_id
            WHERE (lower(t.email) = lower(\(email)) OR lower(u.email) = lower(\(email)))
              AND t.used_at IS NULL AND t.expires_at > now() AND u.deactivated_at IS NULL
            ORDER BY t.created_at DESC
            FOR UPDATE OF t
            """)
        var live: [PostgresRow] = []
        for row in rows {
            let purpose: EmailTokenPurpose = try row.decodeKnown("purpose", table: "auth_email_tokens")
            if purposes.contains(purpose) { live.append(row) }
        }
        let testable = try EmailCodeBudget.testable(try live.map { try $0.decode("id", as: UUID.self) }, source: source, on: connection)
        var tested: [(token: UUID, user: UUID)] = []
        for row in live {
            let id: UUID = try row.decode("id")
            guard testable.contains(id) else { continue }
            let stored: String = try row.decode("code_hash")
            if OneTimeCode.isWellFormed(code),
               ConstantTime.equals(Array(keys.codeHash(tokenID: id, code: code).utf8), Array(stored.utf8)) {
                return .verified(try use(row, id: id, on: connection))
            }
            tested.append((id, try row.decode("user_id")))
        }
        try EmailCodeBudget.recordWrong(tested: tested, source: source, on: connection)
        return .wrong
    }

    /// The live row whose link token is `token`, used up by this call.
    public func verifyLink(token: String, purposes: [EmailTokenPurpose], on connection: PostgresConnection) throws -> Verified? {
        let rows = try connection.query("""
            SELECT t.id, t.user_id, t.purpose, t.email, t.code_challenge, t.code_challenge_method
            FROM auth_email_tokens t JOIN users u ON u.id = t.user_id
            WHERE t.link_hash = \(keys.linkHash(token)) AND t.purpose = ANY(\(purposes.map(\.rawValue)))
              AND t.used_at IS NULL AND t.expires_at > now() AND u.deactivated_at IS NULL
            FOR UPDATE OF t
            """)
        guard let row = rows.first else { return nil }
        return try use(row, id: try row.decode("id"), on: connection)
    }

    /// Whether the link would verify now (unused, unexpired, its account active), spending
    /// nothing: what a page that only shows the link's form may know.
    public func linkIsUsable(token: String, purposes: [EmailTokenPurpose], on connection: PostgresConnection) throws -> Bool {
        try !connection.query("""
            SELECT 1 AS one FROM auth_email_tokens t JOIN users u ON u.id = t.user_id
            WHERE t.link_hash = \(keys.linkHash(token)) AND t.purpose = ANY(\(purposes.map(\.rawValue)))
              AND t.used_at IS NULL AND t.expires_at > now() AND u.deactivated_at IS NULL
            """).isEmpty
    }

    private func use(_ row: PostgresRow, id: UUID, on connection: PostgresConnection) throws -> Verified {
        try connection.execute("UPDATE auth_email_tokens SET used_at = now() WHERE id = \(id)")
        return Verified(userID: try row.decode("user_id"),
                        purpose: try row.decodeKnown("purpose", table: "auth_email_tokens"), email: try row.decode("email"),
                        challenge: try Self.challenge(row))
    }

    static func challenge(_ row: PostgresRow) throws -> Challenge? {
        guard let value: String = try row.decode("code_challenge"),
              try row.decode("code_challenge_method", as: String?.self) != nil else { return nil }
        return Challenge(value: value, method: try row.decodeKnown("code_challenge_method", table: "auth_email_tokens"))
    }

    /// A PKCE authorization code for a verified link (GET /verify answers it as ?code=).
    public func issuePKCECode(for verified: Verified, challenge: Challenge, on connection: PostgresConnection) throws -> String {
        let code = try SecureRandom.token()
        try connection.execute("""
            INSERT INTO auth_pkce_codes (code_hash, user_id, purpose, code_challenge, code_challenge_method, expires_at)
            VALUES (\(keys.pkceCodeHash(code)), \(verified.userID), \(verified.purpose.rawValue), \(challenge.value),
                    \(challenge.method.rawValue), now() + make_interval(secs => \(Self.pkceCodeLifetime.components.seconds)))
            """)
        return code
    }

    public enum Exchange: Sendable {
        case verified(userID: UUID, purpose: EmailTokenPurpose)
        /// Unknown, expired or already exchanged.
        case notFound
        /// The verifier does not answer the challenge; the code is spent all the same.
        case badVerifier
    }

    /// Spends a PKCE code: single use whether or not the verifier matches, so a stolen code
    /// gives one guess at a 256-bit verifier.
    public func exchangePKCECode(_ code: String, verifier: String, on connection: PostgresConnection) throws -> Exchange {
        let rows = try connection.query("""
            DELETE FROM auth_pkce_codes WHERE code_hash = \(keys.pkceCodeHash(code))
            RETURNING user_id, purpose, code_challenge, code_challenge_method, expires_at > now() AS live
            """)
        if Int.random(in: 0..<100) == 0 {
            try connection.execute("DELETE FROM auth_pkce_codes WHERE expires_at < now()")
        }
        guard let row = rows.first, try row.decode("live", as: Bool.self),
              let challenge = try Self.challenge(row) else { return .notFound }
        guard PKCE.verifies(verifier, challenge: challenge.value, method: challenge.method) else { return .badVerifier }
        return .verified(userID: try row.decode("user_id"), purpose: try row.decodeKnown("purpose", table: "auth_pkce_codes"))
    }
}
