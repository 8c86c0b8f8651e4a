/// The `k=v,k=v` parameter field of a PHC string (`ln=15,r=8,p=3`, `m=19456,t=2,p=1`).
enum PHCParameters {
    /// Exactly `keys`, each once, each a non-negative decimal integer; anything else is malformed.
    static func parse(_ field: Substring, keys: Set<Substring>) throws(CredentialsError) -> [Substring: Int] {
        var values: [Substring: Int] = [:]
        for pair in field.split(separator: ",", omittingEmptySubsequences: false) {
            let keyValue = pair.split(separator: "=", omittingEmptySubsequences: false)
            guard keyValue.count == 2, keys.contains(keyValue[0]), values[keyValue[0]] == nil,
                  keyValue[1].allSatisfy(\.isASCIIDigit), let value = Int(keyValue[1])
            else { throw .malformedHash }
            values[keyValue[0]] = value
        }
        guard values.count == keys.count else { throw .malformedHash }
        return values
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
