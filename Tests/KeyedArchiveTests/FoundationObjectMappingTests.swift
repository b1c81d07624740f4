import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The field-mapped Foundation classes — NSAttributedString, NSDecimalNumber, NSValue by
/// Objective-C type, NSCountedSet, NSTimeZone, NSLocale, NSMeasurement with NSUnit,
/// NSAffineTransform, NSSortDescriptor — against independent references: the Apple-made
/// archives of the corpus (decoded to the values their MANIFEST lines name, and values built in
/// Swift encoded to Apple's bytes or objects), Foundation on Linux's own NSKeyedArchiver and
/// NSKeyedUnarchiver, round trips, and hostile variants that must end in typed errors.
@Suite struct FoundationObjectMappingTests {
    static func archive(_ value: some ArchiveObjectEncodable, era: ArchiveWritingOptions.Era = .current, format: ArchiveFormat = .binary) throws -> [UInt8] {
        var options = ArchiveWritingOptions.appleFaithful
        options.era = era
        let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
        try archiver.encode(value)
        return try archiver.finish(format: format)
    }

    static func value(_ bytes: [UInt8], registry: ArchiveRegistry = ArchiveRegistry()) throws -> ArchiveValue {
        try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: registry)
    }

    /// Every top-level value of an archive, as one array.
    static func topValues(_ bytes: [UInt8], registry: ArchiveRegistry) throws -> ArchiveValue {
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
        return .array(try ArchiveGraph(bytes: bytes).top.compactMap { top in
            try unarchiver.decodeIfPresent(ArchiveValue.self, forKey: ArchiveKeys.unescape(top.key) ?? top.key)
        })
    }

    static let inspecting: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.inspectsUnknownClasses = true
        return registry
    }()

    /// Every value of one class reachable in a decoded value, in walk order.
    static func all<T>(_ value: ArchiveValue, _ extract: (ArchiveValue) -> T?) -> [T] {
        var found: [T] = []
        var seen: Set<ObjectIdentifier> = []
        var pending = [value]
        while let next = pending.popLast() {
            // A shared object once, through however many references (and back-references) to it.
            if let object = next.sharedObject, !seen.insert(ObjectIdentifier(object)).inserted { continue }
            let value = next.unshared
            if let match = extract(value) { found.append(match) }
            value.appendChildren(to: &pending)
        }
        return found
    }

    static let folder = "corelibs-foundation/macos-10.14/"

    // MARK: Apple's archives decode to the values their manifest names

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func appleArchivesDecodeToTheirValues() throws {
        // "0123456789" with Font/Size (1..8) Helvetica/123, (2,2) and (4,2) Times/456, (8,1) Times/456.
        let helvetica: [String: ArchiveValue] = ["Font": "Helvetica", "Size": 123], times: [String: ArchiveValue] = ["Font": "Times", "Size": 456]
        let expected = ArchiveAttributedString("0123456789", runs: [.init(length: 1), .init(length: 1, attributes: helvetica), .init(length: 4, attributes: times),
                                                                    .init(length: 2, attributes: helvetica), .init(length: 1, attributes: times), .init(length: 1)])
        for name in ["NSAttributedString", "NSMutableAttributedString"] {
            let decoded = try FoundationDecoding.decode(ArchiveAttributedString.self, ArchiveFixtures.bytes(Self.folder + name + ".archive"))
            #expect(decoded == expected, "\(name): \(decoded.runs)")
            #expect(decoded.archivesAsMutable == (name == "NSMutableAttributedString"))
            #expect(decoded.runs.map(\.length) == [1, 1, 4, 2, 1, 1])
        }
        // "firstsecondthird" with [NSColor redColor] on (0,5): AppKit's colour is refused by
        // default, and read as its fields under inspection.
        let colored = try ArchiveFixtures.bytes("nskeyedunarchiver-rs/NSMutableAttributedString.plist")
        #expect(FoundationDecoding.refusal(ArchiveAttributedString.self, colored)?.keyPath.description == "root.NSAttributes[0].NSColor")
        let inspected = try #require(try Self.value(colored, registry: Self.inspecting).attributedStringValue)
        #expect(inspected.string == "firstsecondthird" && inspected.runs.map(\.length) == [5, 11])
        #expect(inspected.runs[0].attributes["NSColor"]?.instanceValue?.className == "NSColor" && inspected.runs[1].attributes.isEmpty)

        #expect(try FoundationDecoding.decode(ArchiveEncodedValue.self, ArchiveFixtures.bytes("corelibs-foundation/unarchiver/NSKeyedUnarchiver-ConcreteValueTest.plist"))
                == ArchiveEncodedValue(objCType: "[3i]", value: .array([.int(1), .int(2), .int(3)])))

        let numbers: [ArchiveValue] = [3, 2, 5, 1, 4]
        #expect(try FoundationDecoding.decode(ArchiveCountedSet.self, ArchiveFixtures.bytes(Self.folder + "NSCountedSet-Empty.archive")) == ArchiveCountedSet())
        #expect(try FoundationDecoding.decode(ArchiveCountedSet.self, ArchiveFixtures.bytes(Self.folder + "NSCountedSet-NumbersAppearingOnce.archive"))
                == ArchiveCountedSet(numbers.map { .init(element: $0, count: 1) }))
        #expect(try FoundationDecoding.decode(ArchiveCountedSet.self, ArchiveFixtures.bytes(Self.folder + "NSCountedSet-NumbersAppearingSeveralTimes.archive"))
                == ArchiveCountedSet([1, 2, 3, 4, 5].map { .init(element: .int($0), count: 5) }))

        let measurements: [(String, ArchiveMeasurement)] = [
            ("Length", ArchiveMeasurement(value: 45, unit: ArchiveUnit(className: "NSUnitLength", symbol: "mi", converter: .linear(coefficient: 1609.34, constant: 0), specifier: 1287))),
            ("Angle", ArchiveMeasurement(value: 90, unit: ArchiveUnit(className: "NSUnitAngle", symbol: "°", converter: .linear(coefficient: 1, constant: 0), specifier: 256))),
            ("Zero", ArchiveMeasurement(value: 0, unit: ArchiveUnit(symbol: ""))),
        ]
        for (name, measurement) in measurements {
            #expect(try FoundationDecoding.decode(ArchiveMeasurement.self, ArchiveFixtures.bytes(Self.folder + "NSMeasurement-\(name).archive")) == measurement, "\(name)")
        }
        let megahertz = try FoundationDecoding.decode(ArchiveMeasurement.self, ArchiveFixtures.bytes(Self.folder + "NSMeasurement-Frequency.archive"))
        #expect(megahertz.value == 1400 && megahertz.unit.symbol == "MHz" && megahertz.unit.converter == .linear(coefficient: 1_000_000, constant: 0))

        // Rotated 15.5°: the floats of cos and sin.
        let rotation = try FoundationDecoding.decode(ArchiveAffineTransform.self, ArchiveFixtures.bytes("nskeyedunarchiver-rs/NSAffineTransform.plist"))
        let angle = 15.5 * Double.pi / 180
        #expect(rotation.m11 == Float(cos(angle)) && rotation.m12 == Float(sin(angle)) && rotation.m21 == -Float(sin(angle)) && rotation.m22 == Float(cos(angle)))
        #expect(rotation.tX == 0 && rotation.tY == 0)

        // Formatters (no mapping of their own) hold time zones and locales: read under inspection.
        let formatter = try Self.value(ArchiveFixtures.bytes(Self.folder + "DateIntervalFormatter-ValuesSetWithTemplate.archive"), registry: Self.inspecting)
        let zones = Self.all(formatter) { $0.timeZoneValue }
        #expect(Set(zones.map(\.name)) == ["GMT", "GMT+0100"])
        #expect(zones.first { $0.name == "GMT" }?.data.starts(with: Array("TZif".utf8)) == true)
        #expect(zones.first { $0.name == "GMT+0100" }?.data == [])
        #expect(Set(Self.all(formatter) { $0.localeValue?.identifier }) == ["ja-JP"])
        #expect(Self.all(formatter) { $0.timeZoneValue?.timeZone }.contains(try #require(TimeZone(secondsFromGMT: 3600))))

        let nib = try Self.topValues(ArchiveFixtures.bytes("apple-sample-code/AbstractTree_MainMenu_built-app.nib"), registry: Self.inspecting)
        #expect(Self.all(nib) { $0.sortDescriptorValue } == [ArchiveSortDescriptor(key: "name", ascending: true, selector: "compare:")])

        // Interface Builder's NSDecimalNumberPlaceholder: the values Python reads from the same
        // fields (mantissa words × 10^exponent; an empty negative mantissa is NaN).
        let expectedDecimals: [(String, [String])] = [
            ("apple-sample-code/CocoaSlides_BrowserWindow.keyedobjects.nib", ["3", "0", "3", "0", "0", "3"]),
            ("nib/RoddNaderzad_CMPE_277_Smartphone_MainMenu_English.keyedobjects.nib", ["-273.15", "NaN", "-459.67", "0"]),
            ("nib/PeyloW_Screen-Grabber_MainMenu_English.keyedobjects.nib", ["2", "2", "2", "520", "520", "520", "480", "480", "480"]),
            ("nib/Waitsnake_Saver-View_MainMenu_English.keyedobjects.nib", ["999", "1"]),
        ]
        for (path, texts) in expectedDecimals {
            let decoded = Self.all(try Self.topValues(ArchiveFixtures.bytes(path), registry: Self.inspecting)) { $0.decimalNumberValue }
            #expect(decoded.map { "\($0.decimalValue)" }.sorted() == texts.sorted(), "\(path): \(decoded)")
        }
    }

    // MARK: Values built in Swift encode to Apple's bytes

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func valuesEncodeToApplesBytes() throws {
        func check(_ path: String, _ value: some ArchiveObjectEncodable, format: ArchiveFormat = .binary) throws {
            let apple = try ArchiveFixtures.bytes(path)
            let ours = try Self.archive(value, era: GraphRebuilder.era(of: try ArchiveGraph(bytes: apple)) ?? .current, format: format)
            let diff = ArchiveDiff(try ArchiveGraph(bytes: apple), try ArchiveGraph(bytes: ours))
            #expect(ours == apple, "\(path): \(diff)")
        }
        try check(Self.folder + "NSMeasurement-Length.archive",
                  ArchiveMeasurement(value: 45, unit: ArchiveUnit(className: "NSUnitLength", symbol: "mi", converter: .linear(coefficient: 1609.34, constant: 0), specifier: 1287)))
        try check(Self.folder + "NSMeasurement-Zero.archive", ArchiveMeasurement(value: 0, unit: ArchiveUnit(symbol: "")))
        try check(Self.folder + "NSCountedSet-Empty.archive", ArchiveCountedSet())
        try check(Self.folder + "NSCountedSet-NumbersAppearingSeveralTimes.archive", ArchiveCountedSet([3, 2, 5, 1, 4].map { .init(element: .int($0), count: 5) }))
        try check("nskeyedunarchiver-rs/NSAffineTransform.plist", ArchiveAffineTransform(m11: 0.96363044, m12: 0.26723838, m21: -0.26723838, m22: 0.96363044))
        try check("corelibs-foundation/unarchiver/NSKeyedUnarchiver-ConcreteValueTest.plist",
                  try ArchiveEncodedValue(objCType: "[3i]", value: .array([.int(1), .int(2), .int(3)])), format: .xml)
    }

    /// Classes that Apple's corpus holds only inside other objects: our object compared with
    /// Apple's, field by field and object by object, by ``ArchiveDiff``'s walk.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func objectsEncodeAsApplesObjects() throws {
        func differences(_ path: String, uid: Int, _ value: some ArchiveObjectEncodable) throws -> [String] {
            let apple = try ArchiveGraph(bytes: try ArchiveFixtures.bytes(path))
            let ours = try ArchiveGraph(bytes: try Self.archive(value))
            var walk = DiffWalk(a: DiffSide(graph: apple), b: DiffSide(graph: ours), options: ArchiveDiff.Options())
            walk.push(path: walk.paths.child(of: -1, .key("object")), .uid(PropertyListUID(UInt64(uid))), ours.top[0].value)
            walk.run()
            return walk.differences.map(\.description)
        }
        let formatter = Self.folder + "DateIntervalFormatter-ValuesSetWithTemplate.archive"
        let gmt = try #require(Self.all(try Self.value(ArchiveFixtures.bytes(formatter), registry: Self.inspecting)) { $0.timeZoneValue }.first { $0.name == "GMT" })
        #expect(try differences(formatter, uid: 10, ArchiveTimeZone(name: "GMT", data: gmt.data)) == [])
        #expect(try differences(formatter, uid: 18, ArchiveTimeZone(name: "GMT+0100")) == [])
        #expect(try differences(formatter, uid: 4, ArchiveLocale(identifier: "ja-JP")) == [])
        #expect(try differences("apple-sample-code/AbstractTree_MainMenu_built-app.nib", uid: 53, ArchiveSortDescriptor(key: "name", ascending: true, selector: "compare:")) == [])
        // An attributed string of distinct attribute dictionaries (Foundation stores equal ones
        // once only when they are one object; a value built in Swift has no identities to keep).
        let text = ArchiveAttributedString("0123456789", runs: [.init(length: 1), .init(length: 1, attributes: ["Font": "Helvetica", "Size": 123]),
                                                               .init(length: 8, attributes: ["Font": "Times", "Size": 456])], archivesAsMutable: true)
        let ours = try ArchiveGraph(bytes: try Self.archive(text))
        guard case .instance(let root)? = ours.object(PropertyListUID(1)) else { return }
        #expect(ours.className(of: PropertyListUID(1)) == "NSMutableAttributedString")
        #expect(root.fields.map(\.key).sorted() == ["NSAttributeInfo", "NSAttributes", "NSString"])
        #expect(ours.className(of: try #require(root.storage["NSString"]?.uidValue)) == "NSMutableString")
        #expect(ours.className(of: try #require(root.storage["NSAttributes"]?.uidValue)) == "NSMutableArray")
        #expect(ours.className(of: try #require(root.storage["NSAttributeInfo"]?.uidValue)) == "NSMutableData")
    }

    // MARK: Foundation on Linux, both ways

    @Test func foundationsArchivesDecode() throws {
        func archived(_ object: Any) throws -> [UInt8] {
            let archiver = NSKeyedArchiver(requiringSecureCoding: false)
            archiver.encode(object, forKey: "root")
            archiver.finishEncoding()
            return [UInt8](archiver.encodedData)
        }
        let text = NSMutableAttributedString(string: "héllo 👍 world")
        text.addAttribute(NSAttributedString.Key("Font"), value: "Helvetica", range: NSRange(location: 0, length: 3))
        text.addAttribute(NSAttributedString.Key("Size"), value: 12, range: NSRange(location: 2, length: 6))
        let decoded = try FoundationDecoding.decode(ArchiveAttributedString.self, archived(NSAttributedString(attributedString: text)))
        #expect(decoded == ArchiveAttributedString("héllo 👍 world", runs: [.init(length: 2, attributes: ["Font": "Helvetica"]), .init(length: 1, attributes: ["Font": "Helvetica", "Size": 12]),
                                                                            .init(length: 5, attributes: ["Size": 12]), .init(length: 6)]))
        #expect(try FoundationDecoding.decode(ArchiveAttributedString.self, archived(NSAttributedString(string: "plain"))) == ArchiveAttributedString("plain"))
        #expect(try FoundationDecoding.decode(ArchiveAttributedString.self, archived(NSAttributedString(string: ""))) == ArchiveAttributedString(""))

        let counted = try FoundationDecoding.decode(ArchiveCountedSet.self, archived(NSCountedSet(array: [1, 2, 2, 3, 3, 3])))
        #expect(counted == ArchiveCountedSet([.init(element: 1, count: 1), .init(element: 2, count: 2), .init(element: 3, count: 3)]))

        let parisZone = try #require(NSTimeZone(name: "Europe/Paris"))
        let paris = try FoundationDecoding.decode(ArchiveTimeZone.self, archived(parisZone))
        #expect(paris.name == "Europe/Paris" && paris.data == [UInt8](parisZone.data))
        #expect(try FoundationDecoding.decode(TimeZone.self, archived(try #require(NSTimeZone(name: "Europe/Paris")))) == TimeZone(identifier: "Europe/Paris"))
        #expect(try FoundationDecoding.decode(Locale.self, archived(NSLocale(localeIdentifier: "fr_CA"))).identifier == "fr_CA")

        let kilometres = try FoundationDecoding.decode(ArchiveMeasurement.self, archived(NSMeasurement(doubleValue: 3.5, unit: UnitLength.kilometers)))
#if canImport(Darwin)
        // Foundation on Darwin also writes NS.specifier, its own number for a unit it defines
        // (Docs/KeyedArchiveFormat.md; 1287 for miles in the Apple corpus), which Linux does not.
        #expect(kilometres.value == 3.5 && kilometres.unit.className == "NSUnitLength" && kilometres.unit.symbol == "km")
        #expect(kilometres.unit.converter == .linear(coefficient: 1000, constant: 0) && kilometres.unit.specifier != nil)
#else
        #expect(kilometres == ArchiveMeasurement(value: 3.5, unit: ArchiveUnit(className: "NSUnitLength", symbol: "km", converter: .linear(coefficient: 1000, constant: 0))))
#endif
        let celsius = try FoundationDecoding.decode(ArchiveMeasurement.self, archived(NSMeasurement(doubleValue: -40, unit: UnitTemperature.celsius)))
        #expect(celsius.unit.converter == .linear(coefficient: 1, constant: 273.15) && celsius.unit.className == "NSUnitTemperature")

        var triple: (Int32, Int32, Int32) = (7, -8, 9)
        #expect(try FoundationDecoding.decode(ArchiveEncodedValue.self, archived(NSValue(bytes: &triple, objCType: "[3i]")))
                == ArchiveEncodedValue(objCType: "[3i]", value: .array([.int(7), .int(-8), .int(9)])))
        var half = 2.5
        #expect(try FoundationDecoding.decode(ArchiveEncodedValue.self, archived(NSValue(bytes: &half, objCType: "d"))) == ArchiveEncodedValue(objCType: "d", value: .double(2.5)))

        // Foundation on Linux stores the six floats as "[6f]" under $0; read all the same.
        let transform = NSAffineTransform()
        transform.translateX(by: 3, yBy: 4)
        transform.scale(by: 2)
        let matrix = transform.transformStruct
        #expect(try FoundationDecoding.decode(ArchiveAffineTransform.self, archived(transform))
                == ArchiveAffineTransform(m11: Float(matrix.m11), m12: Float(matrix.m12), m21: Float(matrix.m21), m22: Float(matrix.m22), tX: Float(matrix.tX), tY: Float(matrix.tY)))
    }

    @Test func foundationDecodesOurArchives() throws {
        func unarchived<T: NSObject & NSCoding>(_ type: T.Type, _ value: some ArchiveObjectEncodable) throws -> T? {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(try Self.archive(value)))
            unarchiver.requiresSecureCoding = false
            // Foundation on Linux reports a missing NSAttributeInfo even for an attributed string
            // of one run, which it writes so itself (and a Mac too): as an error, not an abort.
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            return unarchiver.decodeObject(forKey: "root") as? T
        }
        let text = try #require(try unarchived(NSAttributedString.self, ArchiveAttributedString("héllo 👍", runs: [.init(length: 3, attributes: ["Font": "Times"]), .init(length: 5, attributes: ["Size": 9])])))
        #expect(text.string == "héllo 👍")
        var range = NSRange()
        #expect(text.attributes(at: 0, effectiveRange: &range)[NSAttributedString.Key("Font")] as? String == "Times" && range == NSRange(location: 0, length: 3))
        #expect(text.attributes(at: 3, effectiveRange: &range)[NSAttributedString.Key("Size")] as? Int == 9 && range == NSRange(location: 3, length: 5))
        let mutable = try #require(try unarchived(NSMutableAttributedString.self, ArchiveAttributedString("ab", attributes: ["K": "v"], archivesAsMutable: true)))
        #expect(mutable.string == "ab")

        let set = try #require(try unarchived(NSCountedSet.self, ArchiveCountedSet([.init(element: "x", count: 3), .init(element: 7, count: 1)])))
        #expect(set.count(for: "x") == 3 && set.count(for: 7) == 1)

        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        #expect(try unarchived(NSTimeZone.self, paris)?.name == "Europe/Paris")
        #expect(try unarchived(NSTimeZone.self, ArchiveTimeZone(name: "GMT+0100"))?.secondsFromGMT == 3600)
        #expect(try unarchived(NSLocale.self, Locale(identifier: "fr_CA"))?.object(forKey: .identifier) as? String == "fr_CA")

        let measurement = try #require(try unarchived(NSMeasurement.self, ArchiveMeasurement(value: 45, unit: ArchiveUnit(className: "NSUnitLength", symbol: "mi", converter: .linear(coefficient: 1609.34, constant: 0), specifier: 1287))))
        #expect(measurement.doubleValue == 45 && measurement.unit.symbol == "mi")
        #expect((measurement.unit as? UnitLength)?.converter.baseUnitValue(fromValue: 1) == 1609.34)

        let value = try #require(try unarchived(NSValue.self, try ArchiveEncodedValue(objCType: "[3i]", value: .array([.int(1), .int(-2), .int(3)]))))
        var triple: (Int32, Int32, Int32) = (0, 0, 0)
        value.getValue(&triple)
        #expect(triple == (1, -2, 3) && String(cString: value.objCType) == "[3i]")
        // Not NSDecimalNumber: Foundation on Linux reads NS.mantissa only as an object (a Mac
        // stores it inline, Interface Builder's nibs too) and packs its words with `&` for `|`;
        // its archiver crashes on one. The Apple-made nibs are its reference.
    }

    // MARK: Round trips

    @Test func valuesRoundTrip() throws {
        func roundTrip<T: ArchiveObjectCodable & Equatable>(_ value: T) throws {
            let bytes = try Self.archive(value)
            #expect(try FoundationDecoding.decode(T.self, bytes) == value, "\(value)")
            #expect(try FoundationDecoding.decode(T.self, try Self.archive(value, format: .xml)) == value, "\(value) in XML")
        }
        try roundTrip(ArchiveAttributedString("héllo 👍 world", runs: [.init(length: 3, attributes: ["A": [1, 2], "B": ["k": .double(0.5)]]), .init(length: 5), .init(length: 6, attributes: ["A": "x"])]))
        try roundTrip(ArchiveAttributedString("", archivesAsMutable: true))
        for text in ["-123.4500", "0", "1e127", "1e-128", "340282366920938463463374607431768211455", "-0.000001", "99999999999999999999999999999999999999e20"] {
            let decimal = try #require(Decimal(string: text))
            try roundTrip(decimal)
            try roundTrip(ArchiveDecimalNumber(decimal))
        }
        #expect(try FoundationDecoding.decode(Decimal.self, try Self.archive(Decimal.nan)).isNaN)
        try roundTrip(ArchiveDecimalNumber(mantissa: [0x1234, 0, 7], exponent: -5, isNegative: true))
        #expect(ArchiveDecimalNumber(Decimal(string: "-123.4500")!).mantissaDigits == "12345")
        #expect(ArchiveDecimalNumber(mantissa: [54852, 18], exponent: -4, isNegative: true).decimalValue == Decimal(string: "-123.45"))
        try roundTrip(try ArchiveEncodedValue(objCType: "{CGRect={CGPoint=dd}{CGSize=dd}}", value: .structure([.structure([.double(1), .double(2)]), .structure([.double(3), .double(4)])])))
        try roundTrip(try ArchiveEncodedValue(objCType: "{pair=[2C]q}", value: .structure([.array([.unsignedChar(255), .unsignedChar(0)]), .longLong(.min)])))
        try roundTrip(try ArchiveEncodedValue(objCType: "B", value: .bool(true)))
        try roundTrip(try ArchiveEncodedValue(objCType: "f", value: .float(0.1)))
        try roundTrip(try ArchiveEncodedValue(objCType: "Q", value: .unsignedLongLong(.max)))
        try roundTrip(ArchiveCountedSet([.init(element: ["nested": [1]], count: 9), .init(element: .date(Date(timeIntervalSinceReferenceDate: 5)), count: 1)]))
        try roundTrip(ArchiveTimeZone(name: "Pacific/Chatham", data: [1, 2, 3]))
        try roundTrip(ArchiveLocale(identifier: "sr_Latn_RS"))
        try roundTrip(ArchiveMeasurement(value: -.infinity, unit: ArchiveUnit(className: "NSUnitFuelEfficiency", symbol: "L/100km", converter: .reciprocal(235.215))))
        try roundTrip(ArchiveAffineTransform(m11: .pi, m12: -0.0, m21: .greatestFiniteMagnitude, m22: 1, tX: -7.5, tY: 1e-30))
        try roundTrip(ArchiveSortDescriptor(key: "name.first", ascending: false, selector: "localizedCaseInsensitiveCompare:"))
        try roundTrip(ArchiveSortDescriptor(key: nil, ascending: true, selector: nil))
        try roundTrip(Locale(identifier: "fr_CA"))
        try roundTrip(try #require(TimeZone(identifier: "America/New_York")))
    }

    // MARK: Hostile variants

    static func hostile(_ classes: [String], _ fields: [(key: String, value: ArchiveGenericObject.Field)]) throws -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveGenericObject(classes: classes, fields: fields))
        return try archiver.finish()
    }

    static func refusal(_ bytes: [UInt8]) -> ArchiveError? {
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: ArchiveRegistry())
            return nil
        } catch {
            return error
        }
    }

    static func oldStyleArray(count: Int, type: Character, size: Int, elements: [PropertyListValue]) -> ArchiveGenericObject {
        ArchiveGenericObject(classes: ["_NSKeyedCoderOldStyleArray", "NSObject"], fields: elements.enumerated().map { ("$\($0.offset)", .inline($0.element)) } + [
            ("NS.count", .inline(.integer(PropertyListInteger(Int64(count))))), ("NS.size", .inline(.integer(PropertyListInteger(Int64(size))))),
            ("NS.type", .inline(.integer(PropertyListInteger(Int64(type.asciiValue ?? 0))))),
        ])
    }

    @Test func hostileVariantsGiveTypedErrors() throws {
        let int = { (value: Int64) in ArchiveGenericObject.Field.inline(.integer(PropertyListInteger(value))) }
        let decimal = ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]
        let mantissa = ArchiveGenericObject.Field.inline(.data([1, 0] + [UInt8](repeating: 0, count: 14)))
        let attributed = ["NSAttributedString", "NSObject"]
        let attributes = ArchiveArray([ArchiveDictionary([(key: "K", value: "v")])], classes: ArchiveArray.mutableArrayClasses)
        let cases: [(String, [String], [(key: String, value: ArchiveGenericObject.Field)], ArchiveError.Code, String)] = [
            ("exponent of the wrong kind", decimal, [("NS.exponent", .object("x")), ("NS.length", int(1)), ("NS.negative", .inline(.bool(false))), ("NS.mantissa", mantissa)], .typeMismatch, "NS.exponent"),
            ("exponent out of range", decimal, [("NS.exponent", int(200)), ("NS.length", int(1)), ("NS.negative", .inline(.bool(false))), ("NS.mantissa", mantissa)], .valueOutOfRange, "NS.exponent"),
            ("nine mantissa words", decimal, [("NS.exponent", int(0)), ("NS.length", int(9)), ("NS.negative", .inline(.bool(false))), ("NS.mantissa", mantissa)], .valueOutOfRange, "NS.length"),
            ("a short mantissa", decimal, [("NS.exponent", int(0)), ("NS.length", int(2)), ("NS.negative", .inline(.bool(false))), ("NS.mantissa", .inline(.data([1, 2, 3])))], .valueOutOfRange, "NS.mantissa"),
            ("an unknown byte order", decimal, [("NS.exponent", int(0)), ("NS.length", int(1)), ("NS.negative", .inline(.bool(false))), ("NS.mantissa", mantissa), ("NS.mantissa.bo", int(7))], .valueOutOfRange, "NS.mantissa.bo"),
            // (No sign reads as positive, and text without NSAttributes as plain, as Apple's
            // decoder reads them, since issue 51: AppleLenientReadTests.)
            ("runs past the text", attributed, [("NSString", .object("ab")), ("NSAttributes", .object(attributes)), ("NSAttributeInfo", .inline(.data([3, 0])))], .valueOutOfRange, "NSAttributeInfo"),
            ("runs short of the text", attributed, [("NSString", .object("abc")), ("NSAttributes", .object(attributes)), ("NSAttributeInfo", .inline(.data([2, 0])))], .valueOutOfRange, "NSAttributeInfo"),
            ("an empty run", attributed, [("NSString", .object("ab")), ("NSAttributes", .object(attributes)), ("NSAttributeInfo", .inline(.data([0, 0, 2, 0])))], .valueOutOfRange, "NSAttributeInfo"),
            ("a run of a missing dictionary", attributed, [("NSString", .object("ab")), ("NSAttributes", .object(attributes)), ("NSAttributeInfo", .inline(.data([2, 5])))], .valueOutOfRange, "NSAttributeInfo"),
            ("a number cut short", attributed, [("NSString", .object("ab")), ("NSAttributes", .object(attributes)), ("NSAttributeInfo", .inline(.data([2, 0x80])))], .valueOutOfRange, "NSAttributeInfo"),
            ("a run length beyond 64 bits", attributed, [("NSString", .object("ab")), ("NSAttributes", .object(attributes)), ("NSAttributeInfo", .inline(.data([UInt8](repeating: 0xFF, count: 10) + [0x7F, 0])))], .valueOutOfRange, "NSAttributeInfo"),
            ("runs without an array", attributed, [("NSString", .object("ab")), ("NSAttributes", .object(ArchiveDictionary([]))), ("NSAttributeInfo", .inline(.data([2, 0])))], .typeMismatch, "NSAttributes"),
            ("a key that is no string", attributed, [("NSString", .object("ab")), ("NSAttributes", .object(ArchiveDictionary([(key: 1, value: "v")])))], .typeMismatch, "NSAttributes"),
            ("a huge element count", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"], [("NS.count", int(1 << 40)), ("NS.object0", .object("x")), ("NS.count0", int(1))], .valueOutOfRange, "NS.count"),
            ("a negative element count", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"], [("NS.count", int(-1))], .valueOutOfRange, "NS.count"),
            ("an element there no times", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"], [("NS.count", int(1)), ("NS.object0", .object("x")), ("NS.count0", int(0))], .valueOutOfRange, "NS.count0"),
            ("a missing element", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"], [("NS.count", int(1)), ("NS.object", .object("x")), ("NS.count0", int(1))], .valueNotFound, "NS.object0"),
            ("a unit that is a string", ["NSMeasurement", "NSObject"], [("NS.value", .inline(.real(.float64(1)))), ("NS.unit", .object("km"))], .typeMismatch, "NS.unit"),
            ("a value that is a string", ["NSMeasurement", "NSObject"], [("NS.value", .object("1")), ("NS.unit", .object(ArchiveGenericObject(classes: ["NSUnit", "NSObject"], fields: [("NS.symbol", .object("x"))])))], .typeMismatch, "NS.value"),
            ("a dimension without a converter", ["NSUnitLength", "NSDimension", "NSUnit", "NSObject"], [("NS.symbol", .object("km"))], .valueNotFound, "NS.converter"),
            ("23 bytes of transform", ["NSAffineTransform", "NSObject"], [("NSTransformStruct", .inline(.data([UInt8](repeating: 0, count: 23))))], .valueOutOfRange, "NSTransformStruct"),
            ("a time zone without a name", ["NSTimeZone", "NSObject"], [("NS.data", .object(Data([1])))], .valueNotFound, "NS.name"),
            ("time zone data that is text", ["NSTimeZone", "NSObject"], [("NS.name", .object("GMT")), ("NS.data", .object("TZif"))], .typeMismatch, "NS.data"),
            ("a locale named by a number", ["NSLocale", "NSObject"], [("NS.identifier", .object(7))], .typeMismatch, "NS.identifier"),
            ("a sort direction that is text", ["NSSortDescriptor", "NSObject"], [("NSKey", .object("k")), ("NSAscending", .object("yes"))], .typeMismatch, "NSAscending"),
        ]
        for (what, classes, fields, code, key) in cases {
            let error = Self.refusal(try Self.hostile(classes, fields))
            #expect(error?.code == code, "\(what): \(error.map(String.init(describing:)) ?? "decoded")")
            #expect(error?.keyPath.description == "root.\(key)", "\(what): \(error.map(String.init(describing:)) ?? "decoded")")
        }
    }

    @Test func malformedTypeEncodingsGiveTypedErrors() throws {
        let value = ["NSValue", "NSObject"]
        let cases: [(String, ArchiveError.Code)] = [
            ("[9999999999i]", .typeMismatch), ("[0i]", .typeMismatch), ("[3{a=i}]", .typeMismatch), ("{}", .typeMismatch), ("{a=}", .typeMismatch),
            ("{a=i", .typeMismatch), ("*", .typeMismatch), ("^i", .typeMismatch), ("@", .typeMismatch), ("ii", .typeMismatch), ("", .typeMismatch),
            (String(repeating: "{a=", count: 20) + "i" + String(repeating: "}", count: 20), .typeMismatch),
            (String(repeating: "i", count: 5000), .typeMismatch),
            ("[3", .typeMismatch), ("[3i", .typeMismatch),
        ]
        for (type, code) in cases {
            let error = Self.refusal(try Self.hostile(value, [("$0", .object(type)), ("$1", .inline(.integer(1)))]))
            #expect(error?.code == code, "\"\(type.prefix(40))\": \(error.map(String.init(describing:)) ?? "decoded")")
            #expect(error?.keyPath.description == "root.$0", "\"\(type.prefix(40))\"")
        }
        // The value does not fit its type, or its array says something else.
        let layouts: [(String, [(key: String, value: ArchiveGenericObject.Field)], ArchiveError.Code, String)] = [
            ("c", [("$1", .inline(.integer(300)))], .valueOutOfRange, "$1"),
            ("C", [("$1", .inline(.integer(-1)))], .valueOutOfRange, "$1"),
            ("i", [("$1", .object("1"))], .typeMismatch, "$1"),
            ("B", [("$1", .inline(.integer(2)))], .valueOutOfRange, "$1"),
            ("{p=ii}", [("$1", .inline(.integer(1)))], .valueNotFound, "$1"),
            ("[3i]", [("$1", .object(Self.oldStyleArray(count: 2, type: "i", size: 4, elements: [1, 2])))], .typeMismatch, "$1"),
            ("[3i]", [("$1", .object(Self.oldStyleArray(count: 3, type: "d", size: 8, elements: [1, 2, 3])))], .typeMismatch, "$1"),
            ("[3i]", [("$1", .object(Self.oldStyleArray(count: 3, type: "i", size: 4, elements: [1, 2])))], .valueNotFound, "$2"),
            ("[2i]", [("$1", .object(Self.oldStyleArray(count: 2, type: "i", size: 4, elements: [1, .integer(PropertyListInteger(Int64(1) << 40))])))], .valueOutOfRange, "$1"),
            ("[2i]", [("$1", .inline(.integer(1)))], .typeMismatch, "$1"),
            ("[2i]", [("$1", .object(ArchiveGenericObject(classes: ["Evil", "NSObject"])))], .classNotAllowed, "$1"),
        ]
        for (type, fields, code, key) in layouts {
            let error = Self.refusal(try Self.hostile(value, [("$0", .object(type))] + fields))
            #expect(error?.code == code, "\(type): \(error.map(String.init(describing:)) ?? "decoded")")
            #expect(error?.keyPath.description.hasSuffix(key) == true, "\(type): \(error.map(String.init(describing:)) ?? "decoded")")
        }
        // A value built in Swift must be of its type.
        #expect(throws: ArchiveError.self) { try ArchiveEncodedValue(objCType: "[2i]", value: .array([.int(1)])) }
        #expect(throws: ArchiveError.self) { try ArchiveEncodedValue(objCType: "i", value: .double(1)) }
    }

    /// Under inspection an object that does not read as its class's value is shown as its fields
    /// rather than refused, and writes back as it was.
    @Test func inspectionShowsAMalformedObjectAsItsFields() throws {
        let bytes = try Self.hostile(["NSLocale", "NSObject"], [("NS.identifier", .object(7))])
        let value = try Self.value(bytes, registry: Self.inspecting)
        #expect(value.instanceValue?.className == "NSLocale" && value.instanceValue?["NS.identifier"]?.value == 7)
        let archiver = KeyedArchiver(registry: Self.inspecting)
        try archiver.encode(value)
        #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: try archiver.finish())).isEqual)
    }
}
