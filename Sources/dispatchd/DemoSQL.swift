/// The SQL that generates the demo team, run server-side in a few large
/// `INSERT … SELECT … FROM generate_series(…)` statements (no per-row round trips).
///
/// Randomness: every random choice is `pg_temp.du(salt, n)`, a hash of (seed, salt, row number)
/// rather than `random()`. The result therefore does not depend on plan or evaluation order,
/// and rows can be related to each other by recomputing ids instead of joining:
/// `pg_temp.did(kind, n)` is the id of row n of a kind (1 users, 2 listings, 3 tasks,
/// 4 activities, 5 notes, 6 subtasks). n must be a row number: hashint8extended folds a
/// bigint to 32 bits before hashing, so n beyond 2^32 (a hash) would collide.
/// Users 1…admins are admins, the rest realtors; realtors are picked with a skew
/// (`u^1.5`), so realtor1 is the busiest agent — the one the benchmarks sign in as.
///
/// The first stage of each statement is MATERIALIZED: otherwise the planner inlines it and
/// re-evaluates the hashed expressions in every join condition and column that uses them
/// (measured: notes 21 s → 11 s).
///
/// Only integers from a validated `DemoDataset` are spliced into this SQL; the password hash
/// travels as a bound parameter.
enum DemoSQL {
    /// Temporary (session-local) helper functions. IMMUTABLE/STABLE SQL functions are inlined
    /// by the planner, so they cost no more than writing the expressions out.
    static func helpers(_ d: DemoDataset) -> String {
        let salt = "\(d.seed)::bigint * 1000"
        return """
            CREATE FUNCTION pg_temp.du(salt integer, n bigint) RETURNS double precision
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN ((hashint8extended(n, \(salt) + salt) >> 11) & 9007199254740991)::double precision
                   / 9007199254740992.0;

            CREATE FUNCTION pg_temp.dpick(salt integer, n bigint, count integer) RETURNS integer
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN least(count - 1, floor(pg_temp.du(salt, n) * count)::integer);

            CREATE FUNCTION pg_temp.did(kind integer, n bigint) RETURNS uuid
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN overlay(overlay(lpad(to_hex(hashint8extended(n, \(salt) + 900 + kind)), 16, '0')
                                   || lpad(to_hex(hashint8extended(n, \(salt) + 950 + kind)), 16, '0')
                                   placing '4' from 13) placing '8' from 17)::uuid;

            CREATE FUNCTION pg_temp.drealtor_number(salt integer, n bigint) RETURNS integer
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN \(d.admins) + 1 + least(\(d.realtors) - 1, floor(power(pg_temp.du(salt, n), 1.5) * \(d.realtors))::integer);

            CREATE FUNCTION pg_temp.drealtor(salt integer, n bigint) RETURNS uuid
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN pg_temp.did(1, pg_temp.drealtor_number(salt, n));

            CREATE FUNCTION pg_temp.dadmin(salt integer, n bigint) RETURNS uuid
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN pg_temp.did(1, 1 + pg_temp.dpick(salt, n, \(d.admins)));

            -- A moment between `since` and now, uniformly (fraction of the way: du).
            CREATE FUNCTION pg_temp.dbetween(salt integer, n bigint, since timestamptz, share double precision)
            RETURNS timestamptz
            LANGUAGE sql STABLE PARALLEL SAFE
            RETURN since + pg_temp.du(salt, n) * share * greatest(now() - since, interval '0');
            """
    }

    static let firstNames = ["Olivia", "Liam", "Emma", "Noah", "Charlotte", "Oliver", "Amelia", "Elijah", "Sophia",
                             "Lucas", "Mia", "Benjamin", "Harper", "Ethan", "Chloe", "Aarav", "Priya", "Mateo",
                             "Zoe", "Hiro", "Fatima", "Jonah", "Leila", "Samuel", "Nadia", "Gabriel", "Aiko",
                             "Diego", "Maya", "Theo"]
    static let lastNames = ["Tremblay", "Smith", "Nguyen", "Patel", "Brown", "Martin", "Roy", "Wilson", "Singh",
                            "Gagnon", "Lee", "Campbell", "Chen", "Kim", "Anderson", "Moreau", "Taylor", "Kaur",
                            "Fraser", "Okafor", "Rossi", "Haddad", "Novak", "Silva", "Murphy", "Wong", "Dubois",
                            "Clarke", "Ahmed", "Scott"]

    /// `(ARRAY['a', 'b'])` from fixed words in code, quotes doubled.
    static func array(_ words: [String]) -> String {
        "(ARRAY[" + words.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ") + "])"
    }

    /// `words[1 + dpick(salt, n, count)]`.
    static func pick(_ words: [String], salt: Int, n: String) -> String {
        "\(array(words))[1 + pg_temp.dpick(\(salt), \(n), \(words.count))]"
    }

    static func users(_ d: DemoDataset) -> String {
        """
        INSERT INTO users (id, name, email, user_type, created_at, updated_at)
        SELECT pg_temp.did(1, n),
               \(pick(firstNames, salt: 1, n: "n")) || ' ' || \(pick(lastNames, salt: 2, n: "n")),
               CASE WHEN n <= \(d.admins) THEN 'admin' || n ELSE 'realtor' || (n - \(d.admins)) END
                   || '@\(DemoDataset.emailDomain)',
               CASE WHEN n <= \(d.admins) THEN 'admin' ELSE 'realtor' END,
               now() - (400 + pg_temp.du(3, n) * 300) * interval '1 day',
               now() - pg_temp.du(4, n) * interval '30 days'
        FROM generate_series(1, \(d.users)) AS n
        """
    }

    /// All demo users share one password hash (bound as $1).
    static func passwords(_ d: DemoDataset) -> String {
        "INSERT INTO user_passwords (user_id, hash) SELECT pg_temp.did(1, n), $1 FROM generate_series(1, \(d.users)) AS n"
    }

    static let cities = ["Vancouver", "Burnaby", "Richmond", "Surrey", "Victoria", "Calgary", "Edmonton", "Toronto",
                         "Ottawa", "Mississauga", "Montreal", "Halifax"]
    static let provinces = ["BC", "BC", "BC", "BC", "BC", "AB", "AB", "ON", "ON", "ON", "QC", "NS"]
    static let postalPrefixes = ["V6B", "V5H", "V6X", "V3T", "V8W", "T2P", "T5J", "M5V", "K1P", "L5B", "H3B", "B3H"]
    static let streets = ["Maple Street", "Oak Avenue", "Cedar Crescent", "Main Street", "King Street West",
                          "Granville Street", "Elm Drive", "Birch Lane", "Lakeshore Boulevard", "Hillside Road",
                          "Park Avenue", "Queen Street", "Harbour View Road", "Willow Way", "Spruce Court",
                          "Jasper Avenue", "Rue Sainte-Catherine", "Spring Garden Road", "Whyte Avenue", "Fir Place"]

    static func listings(_ d: DemoDataset) -> String {
        let r = d.realtors
        return """
            WITH g AS (
                SELECT k, pg_temp.did(2, k) AS id, pg_temp.drealtor_number(100, k) AS owner_n,
                       pg_temp.dpick(101, k, \(cities.count)) + 1 AS city_i,
                       pg_temp.du(102, k) AS status_draw,
                       pg_temp.du(103, k) < 0.85 AS for_sale,
                       now() - (20 + pg_temp.du(104, k) * 710) * interval '1 day' AS created_at
                FROM generate_series(1, \(d.listings)) AS k
            ), b AS (
                SELECT g.*,
                       -- ~half have assigned staff: another realtor than the owner.
                       CASE WHEN \(r) > 1 AND pg_temp.du(105, k) < 0.5
                            THEN \(d.admins) + 1 + (owner_n - \(d.admins) + pg_temp.dpick(106, k, greatest(\(r) - 1, 1))) % \(r)
                       END AS staff_n,
                       CASE WHEN status_draw < 0.10 THEN 'draft' WHEN status_draw < 0.55 THEN 'active'
                            WHEN status_draw < 0.70 THEN 'pending' WHEN status_draw < 0.95 THEN 'closed'
                            ELSE 'deleted' END AS status
                FROM g
            ), c AS (
                SELECT b.*,
                       CASE WHEN status IN ('active', 'pending', 'closed') OR (status = 'deleted' AND pg_temp.du(107, k) < 0.5)
                            THEN created_at + (1 + pg_temp.du(108, k) * 14) * interval '1 day' END AS activated_at
                FROM b
            ), d AS (
                SELECT c.*,
                       CASE WHEN status IN ('pending', 'closed') THEN pg_temp.dbetween(109, k, activated_at, 0.6) END AS pending_at
                FROM c
            ), e AS (
                SELECT d.*,
                       CASE WHEN status = 'closed' THEN pg_temp.dbetween(110, k, pending_at, 1) END AS closed_at,
                       CASE WHEN status = 'deleted' THEN pg_temp.dbetween(111, k, coalesce(activated_at, created_at), 1) END AS deleted_at,
                       (10 + pg_temp.dpick(112, k, 9900))::text || ' ' || \(pick(streets, salt: 113, n: "k")) AS address
                FROM d
            )
            INSERT INTO listings (id, address, city, province, postal_code, country, price, mls_number, listing_type,
                                  status, owned_by, assigned_staff, created_via, source_slack_messages,
                                  activated_at, pending_at, closed_at, deleted_at, created_at, updated_at, version)
            SELECT id, address, \(array(cities))[city_i], \(array(provinces))[city_i],
                   \(array(postalPrefixes))[city_i] || ' ' || pg_temp.dpick(114, k, 10) || chr(65 + pg_temp.dpick(115, k, 26))
                       || pg_temp.dpick(116, k, 10),
                   'CA',
                   CASE WHEN for_sale THEN round((250000 + power(pg_temp.du(117, k), 2) * 2250000)::numeric, -3)
                        ELSE round((1500 + pg_temp.du(117, k) * 4500)::numeric, -1) END,
                   CASE WHEN activated_at IS NOT NULL THEN 'R' || (2700000 + k) END,
                   CASE WHEN for_sale THEN 'sale' ELSE 'rental' END,
                   status, pg_temp.did(1, owner_n), pg_temp.did(1, staff_n),
                   CASE WHEN pg_temp.du(118, k) < 0.1 THEN 'slack' ELSE 'dispatch' END,
                   CASE WHEN pg_temp.du(118, k) < 0.1 THEN ARRAY['New listing coming: ' || address] END,
                   activated_at, pending_at, closed_at, deleted_at, created_at,
                   greatest(created_at, activated_at, pending_at, closed_at, deleted_at),
                   1 + (activated_at IS NOT NULL)::int + (pending_at IS NOT NULL)::int + (closed_at IS NOT NULL)::int
                     + (deleted_at IS NOT NULL)::int
            FROM e
            """
    }
}
