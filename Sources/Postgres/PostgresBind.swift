/// One bound parameter in text format: its text (nil is SQL NULL) and its type OID
/// (0 lets the server infer the type from context).
public struct PostgresBind: Sendable, Hashable {
    public var text: String?
    public var typeOID: UInt32

    public init(text: String?, typeOID: UInt32 = 0) {
        self.text = text
        self.typeOID = typeOID
    }

    public init<Value: PostgresEncodable>(_ value: Value) {
        self.text = value.postgresText
        self.typeOID = Value.postgresTypeOID
    }
}
