import CArgon2

/// Argon2id (RFC 9106) through libargon2, and its PHC string:
/// `$argon2id$v=19$m=19456,t=2,p=1$<base64 salt>$<base64 hash>` (standard alphabet, no
/// padding), the format libargon2, PHP, Python's argon2-cffi and most tools read, so a backup
/// holds only self-describing hashes and never a password.
public enum Argon2id {
    public struct Parameters: Sendable, Equatable {
        /// Memory per hash in KiB (Argon2's m).
        public var memoryKiB: Int
        /// Passes over the memory (Argon2's t).
        public var iterations: Int
        /// Lanes (Argon2's p). They are computed one after another on the caller's thread: the
        /// server's password pool, not the KDF, decides how many hashes run at once.
        public var lanes: Int

        public init(memoryKiB: Int, iterations: Int, lanes: Int) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.lanes = lanes
        }

        /// OWASP's first recommendation for Argon2id: 19 MiB, 2 passes, 1 lane.
        public static let recommended = Parameters(memoryKiB: 19 * 1024, iterations: 2, lanes: 1)

        /// Bounds on what `verify` will run, so a corrupted or planted hash cannot make one
        /// sign-in allocate gigabytes or spin for minutes (256 MiB, 16 passes, 8 lanes).
        var isWithinVerificationLimits: Bool {
            (1...8).contains(lanes) && (8 * lanes...262_144).contains(memoryKiB) && (1...16).contains(iterations)
        }
    }

    struct Stored {
        var parameters: Parameters
        var salt: [UInt8]
        var hash: [UInt8]
    }

    /// The only version written or read: 0x13 (19), the one RFC 9106 specifies.
    static let version = 19

    static func encode(parameters: Parameters, salt: [UInt8], hash: [UInt8]) -> String {
        "$argon2id$v=\(version)$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.lanes)$"
            + Base64.unpaddedEncoded(salt) + "$" + Base64.unpaddedEncoded(hash)
    }

    static func decode(_ encoded: String) throws(CredentialsError) -> Stored {
        // "$argon2id$v=19$m=..,t=..,p=..$salt$hash" splits into 6 parts, the first empty.
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "argon2id", parts[2] == "v=\(version)" else {
            throw .malformedHash
        }
        let values = try PHCParameters.parse(parts[3], keys: ["m", "t", "p"])
        guard let memory = values["m"], let iterations = values["t"], let lanes = values["p"],
              let salt = Base64.unpaddedDecoded(parts[4]), salt.count >= 8,
              let hash = Base64.unpaddedDecoded(parts[5]), (16...64).contains(hash.count)
        else { throw .malformedHash }
        return Stored(parameters: Parameters(memoryKiB: memory, iterations: iterations, lanes: lanes), salt: salt, hash: hash)
    }

    static func derive(
        password: String, salt: [UInt8], parameters: Parameters, length: Int
    ) throws(CredentialsError) -> [UInt8] {
        guard parameters.lanes > 0, parameters.memoryKiB >= 8 * parameters.lanes, parameters.iterations > 0,
              let memory = UInt32(exactly: parameters.memoryKiB), let passes = UInt32(exactly: parameters.iterations),
              let lanes = UInt32(exactly: parameters.lanes), let passwordLength = UInt32(exactly: password.utf8.count),
              let saltLength = UInt32(exactly: salt.count), let outputLength = UInt32(exactly: length)
        else { throw .keyDerivationFailed }
        var passwordBytes = Array(password.utf8)
        var saltBytes = salt
        var output = [UInt8](repeating: 0, count: length)
        let status = passwordBytes.withUnsafeMutableBufferPointer { pass in
            saltBytes.withUnsafeMutableBufferPointer { saltPointer in
                output.withUnsafeMutableBufferPointer { out in
                    var context = argon2_context(
                        out: out.baseAddress, outlen: outputLength, pwd: pass.baseAddress, pwdlen: passwordLength,
                        salt: saltPointer.baseAddress, saltlen: saltLength, secret: nil, secretlen: 0, ad: nil, adlen: 0,
                        t_cost: passes, m_cost: memory, lanes: lanes,
                        // One thread: libargon2 would otherwise start a thread per lane.
                        threads: 1,
                        version: UInt32(ARGON2_VERSION_13.rawValue), allocate_cbk: nil, free_cbk: nil,
                        flags: 0)  // ARGON2_DEFAULT_FLAGS (a macro Swift cannot import)
                    return argon2_ctx(&context, Argon2_id)
                }
            }
        }
        guard status == ARGON2_OK.rawValue else { throw .keyDerivationFailed }
        return output
    }
}
