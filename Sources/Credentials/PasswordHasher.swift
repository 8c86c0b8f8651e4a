import COpenSSL

/// Hashes and verifies passwords with scrypt (OpenSSL `EVP_PBE_scrypt`).
///
/// Why scrypt with N=2^15, r=8, p=3: it is one of OWASP's equivalent recommended scrypt
/// settings (N=2^17,r=8,p=1 ≈ N=2^16,r=8,p=2 ≈ N=2^15,r=8,p=3). Memory per hash is 128·r·N =
/// 32 MiB instead of 128 MiB, so a small box can run several logins at once without running
/// out of memory, while p=3 keeps the total work equal. scrypt is memory-hard, which makes GPU
/// and ASIC guessing far costlier than PBKDF2 at the same latency (PBKDF2-SHA256 would need
/// 600,000 iterations and still be cheap to parallelise on GPUs).
///
/// Encoded form (PHC-string style, self-describing so parameters can be raised later):
/// `$scrypt$ln=15,r=8,p=3$<base64 salt>$<base64 hash>` (standard alphabet, no padding).
public struct PasswordHasher: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// log2 of scrypt's N (CPU/memory cost).
        public var logN: Int
        /// Block size.
        public var r: Int
        /// Parallelisation.
        public var p: Int

        public init(logN: Int, r: Int, p: Int) {
            self.logN = logN
            self.r = r
            self.p = p
        }

        public static let recommended = Parameters(logN: 15, r: 8, p: 3)

        /// Bytes scrypt needs; OpenSSL refuses to exceed `maxmem`, so it is passed explicitly.
        var memoryBytes: UInt64 { 128 * UInt64(r) * (UInt64(1) << UInt64(logN) + UInt64(p) + 2) }

        /// Bounds on what `verify` will run, so a corrupted or planted hash cannot make one
        /// login allocate gigabytes or spin for minutes.
        var isWithinVerificationLimits: Bool {
            (1...20).contains(logN) && (1...32).contains(r) && (1...16).contains(p)
        }
    }

    public let parameters: Parameters
    static let saltLength = 16
    static let hashLength = 32

    public init(parameters: Parameters = .recommended) {
        self.parameters = parameters
    }

    /// A new encoded hash with a fresh random salt.
    public func hash(_ password: String) throws(CredentialsError) -> String {
        let salt = try SecureRandom.bytes(Self.saltLength)
        let derived = try Self.derive(password: password, salt: salt, parameters: parameters, length: Self.hashLength)
        return Self.encode(parameters: parameters, salt: salt, hash: derived)
    }

    /// Whether `password` matches `encoded`. Malformed or out-of-bounds hashes never match.
    public func verify(_ password: String, against encoded: String) -> Bool {
        guard let stored = try? Self.decode(encoded), stored.parameters.isWithinVerificationLimits else {
            return false
        }
        guard let derived = try? Self.derive(
            password: password, salt: stored.salt, parameters: stored.parameters, length: stored.hash.count
        ) else { return false }
        return ConstantTime.equals(derived, stored.hash)
    }

    /// Whether a stored hash should be replaced after the next successful login: different
    /// parameters than the current policy, or not a hash this hasher understands.
    public func needsRehash(_ encoded: String) -> Bool {
        guard let stored = try? Self.decode(encoded) else { return true }
        return stored.parameters != parameters || stored.hash.count != Self.hashLength
    }

    /// Spends the same time as a real verification. Call it when the account does not exist,
    /// so response times do not reveal which emails are registered.
    public func simulateVerification(_ password: String) {
        _ = try? Self.derive(
            password: password, salt: [UInt8](repeating: 0, count: Self.saltLength),
            parameters: parameters, length: Self.hashLength
        )
    }

    // MARK: - Format

    struct Stored {
        var parameters: Parameters
        var salt: [UInt8]
        var hash: [UInt8]
    }

    static func encode(parameters: Parameters, salt: [UInt8], hash: [UInt8]) -> String {
        "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$"
            + Base64.unpaddedEncoded(salt) + "$" + Base64.unpaddedEncoded(hash)
    }

    static func decode(_ encoded: String) throws(CredentialsError) -> Stored {
        // "$scrypt$ln=15,r=8,p=3$salt$hash" splits into ["", "scrypt", params, salt, hash].
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { throw .malformedHash }
        var values: [Substring: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let keyValue = pair.split(separator: "=", omittingEmptySubsequences: false)
            guard keyValue.count == 2, let value = Int(keyValue[1]), values[keyValue[0]] == nil else {
                throw .malformedHash
            }
            values[keyValue[0]] = value
        }
        guard values.count == 3, let logN = values["ln"], let r = values["r"], let p = values["p"],
              let salt = Base64.unpaddedDecoded(parts[3]), !salt.isEmpty,
              let hash = Base64.unpaddedDecoded(parts[4]), hash.count >= 16
        else { throw .malformedHash }
        return Stored(parameters: Parameters(logN: logN, r: r, p: p), salt: salt, hash: hash)
    }

    // MARK: - KDF

    static func derive(
        password: String, salt: [UInt8], parameters: Parameters, length: Int
    ) throws(CredentialsError) -> [UInt8] {
        guard parameters.logN > 0, parameters.logN < 63, parameters.r > 0, parameters.p > 0 else {
            throw .keyDerivationFailed
        }
        // utf8CString always has storage (its NUL terminator), so even an empty password yields
        // a valid pointer, which OpenSSL requires; the terminator is not part of the length.
        let passwordBytes = password.utf8CString
        let cost = UInt64(1) << UInt64(parameters.logN)
        let maxMemory = parameters.memoryBytes + 1024 * 1024
        var output = [UInt8](repeating: 0, count: length)
        let status = passwordBytes.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { saltPointer in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_PBE_scrypt(
                        pass.baseAddress, pass.count - 1, saltPointer.baseAddress, saltPointer.count,
                        cost, UInt64(parameters.r), UInt64(parameters.p), maxMemory, out.baseAddress, length
                    )
                }
            }
        }
        guard status == 1 else { throw .keyDerivationFailed }
        return output
    }
}
