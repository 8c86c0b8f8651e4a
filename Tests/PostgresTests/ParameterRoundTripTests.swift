import Foundation
import Postgres
import Testing
import TestSupport

/// Values sent as bound parameters come back unchanged from a real server.
@Suite struct ParameterRoundTripTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase.create()
    }

    @Test(arguments: [
        "plain", "", "emoji 🚀👩‍💻", "CJK 東京都 서울", "quotes ' \" `", "back\\slash \\x00 \\n",
        "'; DROP TABLE users; --", "$1 $2 ?", "line\nbreak\ttab", "NULL",
    ])
    func textParameterRoundTripsUnchanged(value: String) throws {
        let row = try #require(try db.pool.query("SELECT \(value)::text AS v, length(\(value)::text) AS n").first)
        #expect(try row.decode("v", as: String.self) == value)
        #expect(try row.decode("n", as: Int.self) == value.unicodeScalars.count)
    }

    @Test func injectionAttemptIsStoredAsData() throws {
        try db.pool.execute("CREATE TABLE people (name text)")
        let hostile = "x'); DROP TABLE people; --"
        try db.pool.execute("INSERT INTO people (name) VALUES (\(hostile))")
        let rows = try db.pool.query("SELECT name FROM people WHERE name = \(hostile)")
        #expect(rows.count == 1)
        #expect(try rows.first?.decode("name", as: String.self) == hostile)
    }

    @Test func nullParametersDecodeAsNilOptionals() throws {
        let missingText: String? = nil
        let missingInt: Int? = nil
        let missingDate: Date? = nil
        let row = try #require(try db.pool.query(
            "SELECT \(missingText)::text AS t, \(missingInt) AS i, \(missingDate) AS d, \(missingText)::text IS NULL AS isnull").first)
        #expect(try row.decode("t", as: String?.self) == nil)
        #expect(try row.decode("i", as: Int?.self) == nil)
        #expect(try row.decode("d", as: Date?.self) == nil)
        #expect(try row.decode("isnull", as: Bool.self))
    }

    @Test func nullForNonOptionalThrowsDecodingErrorNamingColumn() throws {
        let row = try #require(try db.pool.query("SELECT NULL::int AS missing").first)
        let error = try #require(throws: PostgresError.self) { try row.decode("missing", as: Int.self) }
        #expect(error.kind == .decoding)
        #expect(error.column == "missing")
    }

    @Test func badFormatThrowsDecodingErrorInsteadOfCrashing() throws {
        let row = try #require(try db.pool.query("SELECT 'abc'::text AS word").first)
        let error = try #require(throws: PostgresError.self) { try row.decode("word", as: Int.self) }
        #expect(error.kind == .decoding)
        #expect(throws: PostgresError.self) { try row.decode("nope", as: String.self) }
        #expect(throws: PostgresError.self) { try row.decode(7, as: String.self) }
    }

    @Test(arguments: [
        [], ["a"], ["with,comma", "with\"quote", "back\\slash", "{braces}", " spaced "], ["", "NULL", "null"], ["🚀", "東京"],
    ])
    func textArrayRoundTripsUnchanged(values: [String]) throws {
        let row = try #require(try db.pool.query("SELECT \(values) AS a, cardinality(\(values)) AS n").first)
        #expect(try row.decode("a", as: [String].self) == values)
        #expect(try row.decode("n", as: Int.self) == values.count)
    }

    @Test func arrayWithNullElementsRoundTrips() throws {
        let values: [String?] = ["a", nil, "", "NULL"]
        let row = try #require(try db.pool.query("SELECT \(values) AS a, array_position(\(values), NULL) AS p").first)
        #expect(try row.decode("a", as: [String?].self) == values)
        #expect(try row.decode("p", as: Int.self) == 2)
    }

    @Test func integerAndUUIDArraysRoundTrip() throws {
        let numbers = [1, -2, Int.max]
        let ids = [UUID(), UUID()]
        let row = try #require(try db.pool.query("SELECT \(numbers) AS n, \(ids) AS u").first)
        #expect(try row.decode("n", as: [Int].self) == numbers)
        #expect(try row.decode("u", as: [UUID].self) == ids)
    }

    @Test(arguments: ["0", "12.34", "-0.01", "123456789012345678.99", "1e-10"])
    func numericRoundTripsAsDecimal(text: String) throws {
        let value = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        let row = try #require(try db.pool.query("SELECT \(value)::numeric(30,12) = \(text)::numeric AS same, \(value) AS v").first)
        #expect(try row.decode("same", as: Bool.self))
        #expect(try row.decode("v", as: Decimal.self) == value)
    }

    @Test func numericDecodesAsStringToo() throws {
        let row = try #require(try db.pool.query("SELECT 19.90::numeric(10,2) AS price").first)
        #expect(try row.decode("price", as: String.self) == "19.90")
        #expect(try row.decode("price", as: Decimal.self) == Decimal(string: "19.9"))
    }

    @Test func timestampRoundTripsWithMicroseconds() throws {
        let date = Date(timeIntervalSince1970: 1_795_342_530.123456)
        let row = try #require(try db.pool.query("SELECT \(date) AS t, extract(microseconds FROM \(date)) AS us").first)
        let decoded = try row.decode("t", as: Date.self)
        #expect(abs(decoded.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
        #expect(try row.decode("t", as: String.self) == "2026-11-22 10:15:30.123456+00")
    }

    @Test func timestampWithOffsetInputIsNormalizedToUTC() throws {
        let row = try #require(try db.pool.query(
            "SELECT '2026-11-22T12:15:30.5+02:00'::timestamptz AS t").first)
        let expected = Date(timeIntervalSince1970: 1_795_342_530.5)
        #expect(try row.decode("t", as: Date.self) == expected)
    }

    @Test func byteaRoundTripsAllByteValues() throws {
        let bytes = Data((0...255).map(UInt8.init) + [0, 0, 255])
        let row = try #require(try db.pool.query("SELECT \(bytes) AS b, length(\(bytes)) AS n").first)
        #expect(try row.decode("b", as: Data.self) == bytes)
        #expect(try row.decode("n", as: Int.self) == bytes.count)
    }

    @Test func scalarTypesRoundTrip() throws {
        let id = UUID()
        let row = try #require(try db.pool.query("""
            SELECT \(true) AS yes, \(false) AS no, \(Int32(-7)) AS small, \(Int64.min) AS big,
                   \(3.25) AS real, \(id) AS id, \(PostgresJSON(rawText: #"{"a": [1, "x"]}"#))::jsonb AS doc
            """).first)
        #expect(try row.decode("yes", as: Bool.self) == true)
        #expect(try row.decode("no", as: Bool.self) == false)
        #expect(try row.decode("small", as: Int32.self) == -7)
        #expect(try row.decode("big", as: Int64.self) == Int64.min)
        #expect(try row.decode("real", as: Double.self) == 3.25)
        #expect(try row.decode("id", as: UUID.self) == id)
        #expect(try row.decode("doc", as: PostgresJSON.self).rawText == #"{"a": [1, "x"]}"#)
        #expect(try row.decode(0, as: Bool.self) == true)
    }

    @Test func parameterWithNulByteIsRejectedNotTruncated() throws {
        let error = try #require(throws: PostgresError.self) { try db.pool.query("SELECT \("a\u{0}b")::text") }
        #expect(error.kind == .misuse)
    }

    @Test func explicitQueryInitializerBindsValues() throws {
        let query = PostgresQuery(sql: "SELECT $1::int + $2::int AS sum", binding: [40, 2])
        #expect(try db.pool.query(query).first?.decode("sum", as: Int.self) == 42)
    }

    @Test func unsafeSQLInterpolationSplicesIdentifierAndBindsValues() throws {
        let table = "widgets"
        try db.pool.execute("CREATE TABLE \(unsafeSQL: table) (name text)")
        let inserted = try db.pool.execute("INSERT INTO \(unsafeSQL: table) VALUES (\("a")), (\("b"))")
        #expect(inserted == 2)
        let query: PostgresQuery = "SELECT count(*) AS n FROM \(unsafeSQL: table) WHERE name <> \("a")"
        #expect(query.sql == "SELECT count(*) AS n FROM widgets WHERE name <> $1")
        #expect(try db.pool.query(query).first?.decode("n", as: Int.self) == 1)
    }

    @Test func fragmentInterpolationRenumbersPlaceholdersAfterOuterBinds() throws {
        let fragment: PostgresQuery = "(n > \(2) AND n < \(10))"
        let query: PostgresQuery = "SELECT count(*) AS c FROM generate_series(\(1), \(20)) n WHERE \(fragment) OR n = \(15)"
        #expect(query.sql == "SELECT count(*) AS c FROM generate_series($1, $2) n WHERE (n > $3 AND n < $4) OR n = $5")
        #expect(try db.pool.query(query).first?.decode("c", as: Int.self) == 8)
        let leading: PostgresQuery = "SELECT \(fragment.binds.count) AS k WHERE \(fragment)"
        #expect(leading.sql == "SELECT $1 AS k WHERE (n > $2 AND n < $3)")
    }

    @Test func fragmentRenumberingCarriesIntoTwoDigitsAndLeavesOtherDollarsAlone() throws {
        let values = (1...9).map { $0 }
        var outer = PostgresQuery(sql: "SELECT 1 WHERE true")
        for value in values { outer = "\(outer) AND \(value) > 0" }
        let fragment = PostgresQuery(sql: "(n = $1 OR n = $12 OR 'a$' = 'a$' OR n = $2)", binds: [PostgresBind(3), PostgresBind(4)])
        let query: PostgresQuery = "\(outer) AND \(fragment) AND é = \(5)"
        #expect(query.sql.hasSuffix("AND $9 > 0 AND (n = $10 OR n = $21 OR 'a$' = 'a$' OR n = $11) AND é = $12"))
        #expect(query.binds.count == 12)
    }

    @Test func rowsAreACollection() throws {
        let rows = try db.pool.query("SELECT g AS n FROM generate_series(1, 5) g")
        #expect(rows.count == 5)
        #expect(try rows.map { try $0.decode("n", as: Int.self) } == [1, 2, 3, 4, 5])
        #expect(rows.columns.names == ["n"])
    }

    @Test func preparedStatementIsReusedAcrossCalls() throws {
        try db.pool.withConnection { connection in
            for value in 1...3 {
                let rows = try connection.queryPrepared(name: "double", "SELECT \(value) * 2 AS d")
                #expect(try rows.first?.decode("d", as: Int.self) == value * 2)
            }
            let count = try connection.query("SELECT count(*) AS n FROM pg_prepared_statements WHERE name = 'double'")
            #expect(try count.first?.decode("n", as: Int.self) == 1)
            #expect(throws: PostgresError.self) { try connection.queryPrepared(name: "double", "SELECT 1") }
            try connection.execute("DEALLOCATE ALL")
            let again = try connection.queryPrepared(name: "double", "SELECT \(21) * 2 AS d")
            #expect(try again.first?.decode("d", as: Int.self) == 42)
        }
    }

    @Test func executeReturnsAffectedRowCounts() throws {
        try db.pool.execute("CREATE TABLE counters (n int)")
        #expect(try db.pool.execute("INSERT INTO counters SELECT g FROM generate_series(1, 4) g") == 4)
        #expect(try db.pool.execute("UPDATE counters SET n = n + 1 WHERE n > \(2)") == 2)
        #expect(try db.pool.execute("DELETE FROM counters WHERE n = \(999)") == 0)
        #expect(try db.pool.query("DELETE FROM counters").commandTag == "DELETE 4")
    }

    @Test func nullArrayElementForNonOptionalElementTypeThrows() throws {
        let row = try #require(try db.pool.query("SELECT ARRAY['a', NULL]::text[] AS a").first)
        let error = try #require(throws: PostgresError.self) { try row.decode("a", as: [String].self) }
        #expect(error.kind == .decoding)
        #expect(try row.decode("a", as: [String?].self) == ["a", nil])
    }
}
