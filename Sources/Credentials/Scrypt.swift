import COpenSSL

/// scrypt (RFC 7914, OpenSSL `EVP_PBE_scrypt`) and its PHC-style string
/// `$scrypt$ln=15,r=8,p=3$<base64 salt>$<base64 hash>`: how every password was stored before
/// Argon2id. Only verified now; a successful sign-in replaces the hash (`PasswordHasher`).
enum Scrypt {
    struct Parameters: Sendable, Equatable {
        /// log2 of scrypt's N (CPU/memory cost).
        var logN: Int
        /// Block size.
        var r: Int
        /// Parallelisation.
        var p: Int

        /// Bytes scrypt needs; OpenSSL refuses to exceed `maxmem`, so it is passed explicitly.
        var memoryBytes: UInt64 { 128 * UInt64(r) * (UInt64(1) << UInt64(logN) + UInt64(p) + 2) }

        /// Bounds on what `verify` will run, so a corrupted or planted hash cannot make one
        /// login allocate gigabytes or spin for minutes.
        var isWithinVerificationLimits: Bool {
            (1...20).contains(logN) && (1...32).contains(r) && (1...16).contains(p)
        }
    }

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
        let values = try PHCParameters.parse(parts[2], keys: ["ln", "r", "p"])
        guard let logN = values["ln"], let r = values["r"], let p = values["p"],
              let salt = Base64.unpaddedDecoded(parts[3]), !salt.isEmpty,
              let hash = Base64.unpaddedDecoded(parts[4]), hash.count >= 16
        else { throw .malformedHash }
        return Stored(parameters: Parameters(logN: logN, r: r, p: p), salt: salt, hash: hash)
    }

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
