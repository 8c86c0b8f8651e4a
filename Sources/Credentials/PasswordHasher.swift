/// Hashes passwords with Argon2id and verifies both Argon2id and the scrypt hashes written
/// before it.
///
/// Why Argon2id with m=19 MiB, t=2, p=1: it is OWASP's first recommendation, and of the
/// settings OWASP rates equivalent it is the cheapest in CPU. The scrypt setting used before
/// (N=2^15, r=8, p=3, itself one of OWASP's equivalent scrypt settings) cost ~185 ms of CPU
/// per sign-in; this costs ~25 ms on the same core (docs/performance.md), so a morning's
/// sign-ins no longer queue behind each other, while every guess still needs 19 MiB of memory
/// filled twice, which is what makes GPU and ASIC guessing costly. The lowest-CPU scrypt
/// setting OWASP lists (N=2^13, r=8, p=10) would still cost ~5 times as much.
///
/// Migration: `needsRehash` is true for any hash that is not Argon2id at the current
/// parameters, and sign-in replaces such a hash right after a successful verification.
public struct PasswordHasher: Sendable {
    public let parameters: Argon2id.Parameters
    static let saltLength = 16
    static let hashLength = 32

    public init(parameters: Argon2id.Parameters = .recommended) {
        self.parameters = parameters
    }

    /// A new encoded hash (PHC string) with a fresh random salt.
    public func hash(_ password: String) throws(CredentialsError) -> String {
        let salt = try SecureRandom.bytes(Self.saltLength)
        let derived = try Argon2id.derive(password: password, salt: salt, parameters: parameters, length: Self.hashLength)
        return Argon2id.encode(parameters: parameters, salt: salt, hash: derived)
    }

    /// Whether `password` matches `encoded` (Argon2id, or an older scrypt hash). Malformed or
    /// out-of-bounds hashes never match.
    public func verify(_ password: String, against encoded: String) -> Bool {
        if let stored = try? Argon2id.decode(encoded) {
            guard stored.parameters.isWithinVerificationLimits, let derived = try? Argon2id.derive(
                password: password, salt: stored.salt, parameters: stored.parameters, length: stored.hash.count
            ) else { return false }
            return ConstantTime.equals(derived, stored.hash)
        }
        if let stored = try? Scrypt.decode(encoded) {
            guard stored.parameters.isWithinVerificationLimits, let derived = try? Scrypt.derive(
                password: password, salt: stored.salt, parameters: stored.parameters, length: stored.hash.count
            ) else { return false }
            return ConstantTime.equals(derived, stored.hash)
        }
        return false
    }

    /// Whether a stored hash should be replaced after the next successful sign-in: scrypt,
    /// other Argon2id parameters than the current policy, or not a hash this hasher understands.
    public func needsRehash(_ encoded: String) -> Bool {
        guard let stored = try? Argon2id.decode(encoded) else { return true }
        return stored.parameters != parameters || stored.hash.count != Self.hashLength
    }

    /// Whether `encoded` is a hash from before Argon2id (scrypt).
    public func isLegacy(_ encoded: String) -> Bool {
        (try? Scrypt.decode(encoded)) != nil
    }

    /// Spends what verifying a legacy hash costs: scrypt at the parameters every password was
    /// stored with before Argon2id (N=2^15, r=8, p=3). Sign-in adds it to a failure that ran
    /// Argon2id while legacy hashes remain, so a wrong password costs the same whether the
    /// account's hash is old, new, or missing.
    public func simulateLegacyVerification(_ password: String) {
        _ = try? Scrypt.derive(password: password, salt: [UInt8](repeating: 0, count: Self.saltLength),
                               parameters: Scrypt.Parameters(logN: 15, r: 8, p: 3), length: Self.hashLength)
    }

    /// Spends the same time as a real verification. Call it when the account does not exist,
    /// so response times do not reveal which emails are registered.
    public func simulateVerification(_ password: String) {
        _ = try? Argon2id.derive(
            password: password, salt: [UInt8](repeating: 0, count: Self.saltLength),
            parameters: parameters, length: Self.hashLength
        )
    }
}
