// libFuzzer target for StrictJSON, the byte-level checker every JSON request body passes
// before Foundation parses it (duplicate keys, UTF-8 only, nesting depth). Built by
// scripts/fuzz-json together with Sources/HTTPServer/StrictJSON.swift as one module.
//
// Checked for every input: no crash or ASan report (the checker is recursive, so the depth
// bound must hold for any nesting); the verdict is the same on a second run; an accepted
// input is valid UTF-8; and wrapping the input in an array (` [ … ] `) keeps what the checker
// found before the input's end: an accepted value stays accepted, a duplicate key stays one,
// too deep stays too deep (each may become too deep, the array adds a level). Malformed input
// may legitimately become valid (`1,2` → `[1,2]`), so it is not compared.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let first = verdict(bytes)
    if verdict(bytes) != first { fatalError("two runs over the same bytes disagree") }
    if first == nil, String(validating: bytes, as: UTF8.self) == nil { fatalError("accepted bytes that are not UTF-8") }
    let wrapped = Array(" [\n".utf8) + bytes + Array("\t] ".utf8)
    let inside = verdict(wrapped)
    switch first {
    case nil where inside != nil && inside != .tooDeep:
        fatalError("accepted alone but \(String(describing: inside)) inside an array")
    case .duplicateKey(let key)? where inside != .duplicateKey(key) && inside != .tooDeep:
        fatalError("duplicate \(key) alone but \(String(describing: inside)) inside an array")
    case .tooDeep? where inside != .tooDeep:
        fatalError("too deep alone but \(String(describing: inside)) inside an array")
    case .notUTF8? where inside != .notUTF8 && inside != .malformed:
        // A byte order mark is only one at the start; inside an array it is a stray character.
        fatalError("not UTF-8 alone but \(String(describing: inside)) inside an array")
    default:
        break
    }
    return 0
}

private func verdict(_ bytes: [UInt8]) -> StrictJSON.Problem? {
    do throws(StrictJSON.Problem) {
        try StrictJSON.check(bytes)
        return nil
    } catch {
        return error
    }
}
