extension GS1ElementString {
    /// The Application Identifiers scand knows (GS1 General Specifications, release 24, section 3.2), by their
    /// digits: format ("N18": 18 digits; "X..20": up to 20 characters of set 82; "N3+X..9": parts in sequence;
    /// "N6..12": 6 to 12 digits), data title, and the check beyond the format. An AI not here is an error.
    static let table: [String: AISpec] = {
        var t: [String: AISpec] = [:]
        func add(_ ai: String, _ format: String, _ title: String, _ check: AISpec.Check = .none) {
            t[ai] = AISpec(title: title, parts: parts(format), check: check)
        }
        for (ai, format, title, check) in rows { add(ai, format, title, check) }
        for (ai, title) in [
            ("11", "PROD DATE"), ("12", "DUE DATE"), ("13", "PACK DATE"), ("15", "BEST BEFORE or BEST BY"),
            ("16", "SELL BY"), ("17", "USE BY or EXPIRY"),
        ] { add(ai, "N6", title, .date) }
        let measures: [String: String] = [
            "310": "NET WEIGHT (kg)", "311": "LENGTH (m)", "312": "WIDTH (m)", "313": "HEIGHT (m)",
            "314": "AREA (m²)", "315": "NET VOLUME (l)", "316": "NET VOLUME (m³)", "320": "NET WEIGHT (lb)",
            "330": "GROSS WEIGHT (kg)", "331": "LENGTH (m), log", "332": "WIDTH (m), log", "333": "HEIGHT (m), log",
            "334": "AREA (m²), log", "335": "VOLUME (l), log", "336": "VOLUME (m³), log", "337": "KG PER m²",
            "340": "GROSS WEIGHT (lb)",
        ]
        for prefix in 310...369 where !(317...319).contains(prefix) {
            for n in 0...5 { add("\(prefix)\(n)", "N6", measures["\(prefix)"] ?? "MEASURE") }
        }
        for n in 0...9 {
            add("390\(n)", "N..15", "AMOUNT")
            add("391\(n)", "N3+N..15", "AMOUNT")
            add("392\(n)", "N..15", "PRICE")
            add("393\(n)", "N3+N..15", "PRICE")
            add("394\(n)", "N4", "PRCNT OFF")
            add("395\(n)", "N6", "PRICE/UoM")
        }
        for (ai, title) in [
            ("410", "SHIP TO LOC"), ("411", "BILL TO"), ("412", "PURCHASE FROM"), ("413", "SHIP FOR LOC"),
            ("414", "LOC No."), ("415", "PAY TO"), ("416", "PROD/SERV LOC"), ("417", "PARTY"),
        ] { add(ai, "N13", title, .checkDigit(digits: 13)) }
        for (ai, format, title) in [
            ("4300", "X..35", "SHIP TO COMP"), ("4301", "X..35", "SHIP TO NAME"), ("4302", "X..70", "SHIP TO ADD1"),
            ("4303", "X..70", "SHIP TO ADD2"), ("4304", "X..70", "SHIP TO SUB"), ("4305", "X..70", "SHIP TO LOC"),
            ("4306", "X..70", "SHIP TO REG"), ("4307", "X2", "SHIP TO COUNTRY"), ("4308", "X..30", "SHIP TO PHONE"),
            ("4309", "N20", "SHIP TO GEO"), ("4310", "X..35", "RTN TO COMP"), ("4311", "X..35", "RTN TO NAME"),
            ("4312", "X..70", "RTN TO ADD1"), ("4313", "X..70", "RTN TO ADD2"), ("4314", "X..70", "RTN TO SUB"),
            ("4315", "X..70", "RTN TO LOC"), ("4316", "X..70", "RTN TO REG"), ("4317", "X2", "RTN TO COUNTRY"),
            ("4318", "X..20", "RTN TO POST"), ("4319", "X..30", "RTN TO PHONE"), ("4320", "X..35", "SRV DESCRIPTION"),
            ("4321", "N1", "DANGEROUS GOODS"), ("4322", "N1", "AUTH LEAVE"), ("4323", "N1", "SIG REQUIRED"),
        ] { add(ai, format, title) }
        for s in 0...9 { add("703\(s)", "N3+X..27", "PROCESSOR # \(s)") }
        for (ai, title) in [
            ("710", "NHRN PZN"), ("711", "NHRN CIP"), ("712", "NHRN CN"), ("713", "NHRN DRN"), ("714", "NHRN AIM"),
            ("715", "NHRN NDC"),
        ] { add(ai, "X..20", title) }
        for d in 1...9 { add("9\(d)", "X..90", "INTERNAL") }
        return t
    }()

    /// The AIs of ``table`` one by one: AI, format, title, check (the families of AIs are added in a loop there).
    private static let rows: [(String, String, String, AISpec.Check)] = [
        ("00", "N18", "SSCC", .checkDigit(digits: 18)),
        ("01", "N14", "GTIN", .checkDigit(digits: 14)),
        ("02", "N14", "CONTENT", .checkDigit(digits: 14)),
        ("03", "N14", "MTO GTIN", .checkDigit(digits: 14)),
        ("10", "X..20", "BATCH/LOT", .none),
        ("20", "N2", "VARIANT", .none),
        ("21", "X..20", "SERIAL", .none),
        ("22", "X..20", "CPV", .none),
        ("235", "X..28", "TPX", .none),
        ("240", "X..30", "ADDITIONAL ID", .none),
        ("241", "X..30", "CUST. PART No.", .none),
        ("242", "N..6", "MTO VARIANT", .none),
        ("243", "X..20", "PCN", .none),
        ("250", "X..30", "SECONDARY SERIAL", .none),
        ("251", "X..30", "REF. TO SOURCE", .none),
        ("253", "N13+X..17", "GDTI", .checkDigit(digits: 13)),
        ("254", "X..20", "GLN EXTENSION COMPONENT", .none),
        ("255", "N13+N..12", "GCN", .checkDigit(digits: 13)),
        ("30", "N..8", "VAR. COUNT", .none),
        ("37", "N..8", "COUNT", .none),
        ("400", "X..30", "ORDER NUMBER", .none),
        ("401", "X..30", "GINC", .none),
        ("402", "N17", "GSIN", .checkDigit(digits: 17)),
        ("403", "X..30", "ROUTE", .none),
        ("420", "X..20", "SHIP TO POST", .none),
        ("421", "N3+X..9", "SHIP TO POST", .none),
        ("422", "N3", "ORIGIN", .none),
        ("423", "N3+N..12", "COUNTRY - INITIAL PROCESS.", .none),
        ("424", "N3", "COUNTRY - PROCESS.", .none),
        ("425", "N3+N..12", "COUNTRY - DISASSEMBLY", .none),
        ("426", "N3", "COUNTRY - FULL PROCESS", .none),
        ("427", "X..3", "ORIGIN SUBDIVISION", .none),
        ("4324", "N10", "NBEF DEL DT", .dateThenMore),
        ("4325", "N10", "NAFT DEL DT", .dateThenMore),
        ("4326", "N6", "REL DATE", .date),
        ("7001", "N13", "NSN", .none),
        ("7002", "X..30", "MEAT CUT", .none),
        ("7003", "N10", "EXPIRY TIME", .dateThenMore),
        ("7004", "N..4", "ACTIVE POTENCY", .none),
        ("7005", "X..12", "CATCH AREA", .none),
        ("7006", "N6", "FIRST FREEZE DATE", .date),
        ("7007", "N6..12", "HARVEST DATE", .dateThenMore),
        ("7008", "X..3", "AQUATIC SPECIES", .none),
        ("7009", "X..10", "FISHING GEAR TYPE", .none),
        ("7010", "X..2", "PROD METHOD", .none),
        ("7020", "X..20", "REFURB LOT", .none),
        ("7021", "X..20", "FUNC STAT", .none),
        ("7022", "X..20", "REV STAT", .none),
        ("7023", "X..30", "GIAI - ASSEMBLY", .none),
        ("7040", "N1+X3", "UIC+EXT", .none),
        ("7240", "X..20", "PROTOCOL", .none),
        ("8001", "N14", "DIMENSIONS", .none),
        ("8002", "X..20", "CMT No.", .none),
        ("8003", "N14+X..16", "GRAI", .checkDigit(digits: 14)),
        ("8004", "X..30", "GIAI", .none),
        ("8005", "N6", "PRICE PER UNIT", .none),
        ("8006", "N14+N2+N2", "ITIP", .checkDigit(digits: 14)),
        ("8007", "X..34", "IBAN", .none),
        ("8008", "N8+N..4", "PROD TIME", .dateThenMore),
        ("8009", "X..50", "OPTSEN", .none),
        ("8010", "Y..30", "CPID", .none),
        ("8011", "N..12", "CPID SERIAL", .none),
        ("8012", "X..20", "VERSION", .none),
        ("8013", "X..25", "GMN", .none),
        ("8017", "N18", "GSRN - PROVIDER", .checkDigit(digits: 18)),
        ("8018", "N18", "GSRN - RECIPIENT", .checkDigit(digits: 18)),
        ("8019", "N..10", "SRIN", .none),
        ("8020", "X..25", "REF No.", .none),
        ("8026", "N14+N2+N2", "ITIP CONTENT", .checkDigit(digits: 14)),
        ("8110", "X..70", "COUPON (North America)", .none),
        ("8111", "N4", "POINTS", .none),
        ("8112", "X..70", "PAPERLESS COUPON (North America)", .none),
        ("8200", "X..70", "PRODUCT URL", .none),
        ("90", "X..30", "INTERNAL", .none),
    ]

    /// The parts of a format such as "N3+X..9" or "N6..12".
    private static func parts(_ format: String) -> [AISpec.Part] {
        format.split(separator: "+").map { part in
            let kind: AISpec.Kind = part.first == "N" ? .n : part.first == "Y" ? .y : .x
            let body = part.dropFirst()
            let bounds = body.split(separator: ".", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            if body.first == "." { return AISpec.Part(kind: kind, min: 1, max: Int(bounds[0])!) }
            if bounds.count == 2 { return AISpec.Part(kind: kind, min: Int(bounds[0])!, max: Int(bounds[1])!) }
            let n = Int(body)!
            return AISpec.Part(kind: kind, min: n, max: n)
        }
    }
}
