import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `ArchiveDiff` on hand-made archives — property lists built here object by object, so what
/// differs is known by construction, not taken from our writer — on Foundation's
/// `NSKeyedArchiver` output, and on Apple's fixtures against our faithful rewrites.
@Suite struct ArchiveDiffTests: HandBuiltArchives {
    // MARK: Building archives by hand

    static func graph(_ plist: PropertyListValue) throws -> ArchiveGraph { try ArchiveGraph(propertyList: plist) }

    static func diff(_ a: PropertyListValue, _ b: PropertyListValue, valuesOnly: Bool = false) throws -> [String] {
        var options = ArchiveDiff.Options()
        options.valuesOnly = valuesOnly
        return ArchiveDiff(try graph(a), try graph(b), options: options).differences.map(\.description)
    }

    /// A pilot (#1) with an array (#3) of two airplanes (#4, #7); object numbers as listed.
    static func fleet(registration: String = "N2", hours: PropertyListValue = 120, extraField: Bool = false,
                      gliderChain: [String] = ["Glider", "Airplane", "NSObject"]) -> PropertyListValue {
        archive([
            /* 1 */ instance(2, [("name", uid(8)), ("airplanes", uid(3))]),
            /* 2 */ classDictionary(["Pilot", "NSObject"]),
            /* 3 */ instance(9, [("NS.objects", .array([uid(4), uid(7)]))]),
            /* 4 */ instance(5, [("registrationNumber", uid(6)), ("airframeHours", 40)]),
            /* 5 */ classDictionary(["PoweredAirplane", "Airplane", "NSObject"]),
            /* 6 */ "N1",
            /* 7 */ instance(10, [("registrationNumber", uid(11)), ("airframeHours", hours)] + (extraField ? [("wingspan", .double(15))] : [])),
            /* 8 */ "Amelia",
            /* 9 */ classDictionary(["NSArray", "NSObject"]),
            /* 10 */ classDictionary(gliderChain),
            /* 11 */ .string(registration),
        ])
    }

    // MARK: Naming

    /// An object reachable along several paths is named by its shortest: three pilots in an
    /// array, each also reachable from the one before through `next` (as a fleet's airplanes
    /// reach their owners), the last one renamed.
    @Test func differencesAreNamedByTheShortestPath() throws {
        func pilots(lastName: String) -> PropertyListValue {
            Self.archive([
                /* 1 */ Self.instance(2, [("NS.objects", .array([Self.uid(3), Self.uid(5), Self.uid(7)]))]),
                /* 2 */ Self.classDictionary(["NSArray", "NSObject"]),
                /* 3 */ Self.instance(9, [("name", Self.uid(4)), ("next", Self.uid(5))]),
                /* 4 */ "P0",
                /* 5 */ Self.instance(9, [("name", Self.uid(6)), ("next", Self.uid(7))]),
                /* 6 */ "P1",
                /* 7 */ Self.instance(9, [("name", Self.uid(8))]),
                /* 8 */ .string(lastName),
                /* 9 */ Self.classDictionary(["Pilot", "NSObject"]),
            ])
        }
        let found = try Self.diff(pilots(lastName: "P2"), pilots(lastName: "P2 renamed"))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("root[2].name: ") == true, "\(found)")
    }

    // MARK: Equal copies

    @Test func renumberedCopyIsEqual() throws {
        // The same graph with every object at another UID and fields in another order.
        let renumbered = Self.archive([
            /* 1 */ "N2",
            /* 2 */ Self.classDictionary(["Glider", "Airplane", "NSObject"]),
            /* 3 */ Self.instance(2, [("airframeHours", 120), ("registrationNumber", Self.uid(1))]),
            /* 4 */ Self.instance(5, [("NS.objects", .array([Self.uid(6), Self.uid(3)]))]),
            /* 5 */ Self.classDictionary(["NSArray", "NSObject"]),
            /* 6 */ Self.instance(7, [("airframeHours", 40), ("registrationNumber", Self.uid(8))]),
            /* 7 */ Self.classDictionary(["PoweredAirplane", "Airplane", "NSObject"]),
            /* 8 */ "N1",
            /* 9 */ Self.instance(10, [("airplanes", Self.uid(4)), ("name", Self.uid(11))]),
            /* 10 */ Self.classDictionary(["Pilot", "NSObject"]),
            /* 11 */ "Amelia",
        ], top: [("root", Self.uid(9))])
        #expect(try Self.diff(Self.fleet(), renumbered) == [])
        let layout = try ArchiveLayoutExplanation.explain(PropertyListCodec.encode(Self.fleet(), format: .binary), PropertyListCodec.encode(renumbered, format: .binary))
        #expect(layout.contains { $0.hasPrefix("object order: 4 of 4 matched objects have another UID, first root (A #1, B #9)") }, "\(layout)")
        #expect(layout.contains { $0.hasPrefix("dictionary key order: ") }, "\(layout)")
    }

    @Test func xmlCopyIsEqualAndLayoutSaysWhy() throws {
        let binary = try PropertyListCodec.encode(Self.fleet(), format: .binary)
        let xml = try PropertyListCodec.encode(Self.fleet(), format: .xml)
        #expect(ArchiveDiff(try ArchiveGraph(bytes: binary), try ArchiveGraph(bytes: xml)).isEqual)
        let layout = try ArchiveLayoutExplanation.explain(binary, xml)
        #expect(layout.first == "format: A is binary, B is xml")
        #expect(try ArchiveLayoutExplanation.explain(binary, binary) == ["the files are byte-identical"])
    }

    /// Foundation's own archiver, binary against XML, and a graph it shares against one it does not.
    @Test func foundationArchivesCompare() throws {
        let shared = NSMutableArray(array: ["x", 1])
        let root: NSDictionary = ["first": shared, "second": shared, "n": NSNumber(value: 2.5), "set": NSSet(array: ["a", "b", "c"])]
        func archived(_ object: Any, format: PropertyListSerialization.PropertyListFormat) throws -> [UInt8] {
            let archiver = NSKeyedArchiver(requiringSecureCoding: false)
            archiver.outputFormat = format
            archiver.encode(object, forKey: "root")
            archiver.finishEncoding()
            return [UInt8](archiver.encodedData)
        }
        let binary = try ArchiveGraph(bytes: archived(root, format: .binary))
        let xml = try ArchiveGraph(bytes: archived(root, format: .xml))
        #expect(ArchiveDiff(binary, xml).differences.map(\.description) == [])
        // Foundation on Linux shares equal objects, so an unshared copy is made by hand below
        // (sharedObjectUnshared); a changed number inside the graph is named by its key.
        let changed: NSDictionary = ["first": shared, "second": shared, "n": NSNumber(value: 3.5), "set": NSSet(array: ["c", "b", "a"])]
        let other = try ArchiveGraph(bytes: archived(changed, format: .binary))
        #expect(ArchiveDiff(binary, other).differences.map(\.description) == ["root.n: value changed: real 2.5 → real 3.5"])
    }

    // MARK: Each kind of difference

    @Test func changedValuesAndTypesNameTheirPath() throws {
        #expect(try Self.diff(Self.fleet(), Self.fleet(registration: "N3")) == [#"root.airplanes[1].registrationNumber: value changed: "N2" → "N3""#])
        #expect(try Self.diff(Self.fleet(), Self.fleet(hours: 121)) == ["root.airplanes[1].airframeHours: value changed: integer 120 → integer 121"])
        #expect(try Self.diff(Self.fleet(), Self.fleet(hours: .double(120))) == ["root.airplanes[1].airframeHours: type changed: integer 120 → real 120.0"])
        #expect(try Self.diff(Self.fleet(hours: .double(0.5)), Self.fleet(hours: .float(0.5))) == ["root.airplanes[1].airframeHours: type changed: real 0.5 → 32-bit real 0.5"])
        #expect(try Self.diff(Self.fleet(hours: "x"), Self.fleet(hours: .data([0x78]))) == [#"root.airplanes[1].airframeHours: type changed: "x" → data of 1 bytes <78>"#])
        #expect(try Self.diff(Self.fleet(hours: .integer(PropertyListInteger(high: 0, low: 7, isStoredAs128Bit: false))),
                              Self.fleet(hours: .integer(PropertyListInteger(high: 0, low: 7, isStoredAs128Bit: true))))
            == ["root.airplanes[1].airframeHours: type changed: integer 7 → 16-byte integer 7"])
    }

    @Test func fieldsOnlyOnOneSide() throws {
        #expect(try Self.diff(Self.fleet(extraField: true), Self.fleet()) == ["root.airplanes[1].wingspan: only in A: real 15.0"])
        #expect(try Self.diff(Self.fleet(), Self.fleet(extraField: true)) == ["root.airplanes[1].wingspan: only in B: real 15.0"])
    }

    /// Field names that are canonically equivalent but not the same scalars ("é" and "e" +
    /// U+0301) are different keys to the archive, so they are different fields to the diff.
    @Test func namesMatchByTheirExactScalars() throws {
        let composed = Self.archive([Self.instance(2, [("caf\u{E9}", 1)]), Self.classDictionary(["Menu", "NSObject"])])
        let decomposed = Self.archive([Self.instance(2, [("cafe\u{301}", 1)]), Self.classDictionary(["Menu", "NSObject"])])
        let found = try Self.diff(composed, decomposed)
        #expect(found.count == 2)
        #expect(found.contains { $0.contains("only in A") } && found.contains { $0.contains("only in B") })
        #expect(try Self.diff(composed, composed) == [])
    }

    @Test func classesAndChains() throws {
        #expect(try Self.diff(Self.fleet(), Self.fleet(gliderChain: ["Sailplane", "Airplane", "NSObject"])) == ["root.airplanes[1]: class changed: Glider → Sailplane"])
        let chain = try Self.diff(Self.fleet(), Self.fleet(gliderChain: ["Glider", "NSObject"]))
        #expect(chain == ["root.airplanes[1]: class chain changed: Glider < Airplane < NSObject → Glider < NSObject"])
        #expect(try Self.diff(Self.fleet(), Self.fleet(gliderChain: ["Glider", "NSObject"]), valuesOnly: true) == [])
    }

    @Test func collectionsOfAnotherLength() throws {
        let one = Self.archive([Self.instance(2, [("NS.objects", .array([Self.uid(3)]))]), Self.classDictionary(["NSArray", "NSObject"]), "a"])
        let two = Self.archive([Self.instance(2, [("NS.objects", .array([Self.uid(3), Self.uid(4)]))]), Self.classDictionary(["NSArray", "NSObject"]), "a", "b"])
        #expect(try Self.diff(one, two) == ["root: count changed: 1 elements → 2 elements"])
    }

    /// Two fields naming one object in A, two equal objects in B: the sharing is the only difference.
    @Test func sharedObjectUnshared() throws {
        let shared = Self.archive([
            Self.instance(2, [("home", Self.uid(3)), ("work", Self.uid(3))]),
            Self.classDictionary(["Person", "NSObject"]),
            Self.instance(4, [("city", "Paris")]),
            Self.classDictionary(["Address", "NSObject"]),
        ])
        let unshared = Self.archive([
            Self.instance(2, [("home", Self.uid(3)), ("work", Self.uid(5))]),
            Self.classDictionary(["Person", "NSObject"]),
            Self.instance(4, [("city", "Paris")]),
            Self.classDictionary(["Address", "NSObject"]),
            Self.instance(4, [("city", "Paris")]),
        ])
        #expect(try Self.diff(shared, unshared) == ["root.work: sharing changed: in A the same object as root.home; in B another object"])
        #expect(try Self.diff(unshared, shared) == ["root.work: sharing changed: in A another object; in B the same object as root.home"])
        #expect(try Self.diff(shared, unshared, valuesOnly: true) == [])
    }

    /// A two-object cycle, renumbered: equal, and the walk ends. With a value changed inside
    /// the cycle, that value is the one difference.
    @Test func cyclesAreFollowedOnce() throws {
        func ring(_ label: PropertyListValue, swap: Bool) -> PropertyListValue {
            let first = Self.instance(3, [("next", Self.uid(swap ? 1 : 2)), ("label", "one")])
            let second = Self.instance(3, [("next", Self.uid(swap ? 2 : 1)), ("label", label)])
            // Renumbered: with `swap`, the root is #2 and its successor #1.
            return Self.archive(swap ? [second, first, Self.classDictionary(["Node", "NSObject"])] : [first, second, Self.classDictionary(["Node", "NSObject"])],
                                top: [("root", Self.uid(swap ? 2 : 1))])
        }
        #expect(try Self.diff(ring("two", swap: false), ring("two", swap: true)) == [])
        #expect(try Self.diff(ring("two", swap: false), ring("deux", swap: true)) == [#"root.next.label: value changed: "two" → "deux""#])
    }

    @Test func dictionariesByKeySetsAsSets() throws {
        func dictionary(_ pairs: [(String, PropertyListValue)]) -> PropertyListValue {
            // Keys #3…, values inline after them.
            var objects: [PropertyListValue] = [.string("placeholder"), Self.classDictionary(["NSDictionary", "NSObject"])]
            var keys: [PropertyListValue] = [], values: [PropertyListValue] = []
            for (key, value) in pairs {
                objects.append(.string(key)); keys.append(Self.uid(objects.count))
                objects.append(value); values.append(Self.uid(objects.count))
            }
            objects[0] = Self.instance(2, [("NS.keys", .array(keys)), ("NS.objects", .array(values))])
            return Self.archive(objects)
        }
        #expect(try Self.diff(dictionary([("a", 1), ("b", 2)]), dictionary([("b", 2), ("a", 1)])) == [])
        #expect(try Self.diff(dictionary([("a", 1), ("b", 2)]), dictionary([("b", 3), ("c", 1)]))
            == ["root.a: only in A: integer 1", "root.c: only in B: integer 1", "root.b: value changed: integer 2 → integer 3"])

        // Object keys (an NSURL-like key) are matched by their whole content and named by
        // their class and first string field.
        func urlKeyed(_ url: String) -> PropertyListValue {
            Self.archive([
                Self.instance(2, [("NS.keys", .array([Self.uid(3)])), ("NS.objects", .array([Self.uid(5)]))]),
                Self.classDictionary(["NSDictionary", "NSObject"]),
                Self.instance(4, [("NS.base", Self.uid(0)), ("NS.relative", Self.uid(6))]),
                Self.classDictionary(["NSURL", "NSObject"]),
                "state",
                .string(url),
            ])
        }
        #expect(try Self.diff(urlKeyed("x-log://1"), urlKeyed("x-log://1")) == [])
        #expect(try Self.diff(urlKeyed("x-log://1"), urlKeyed("x-log://2"))
            == [#"root.<NSURL "x-log://1">: only in A: "state""#, #"root.<NSURL "x-log://2">: only in B: "state""#])

        func set(_ elements: [PropertyListValue]) -> PropertyListValue {
            var objects: [PropertyListValue] = [.string("placeholder"), Self.classDictionary(["NSSet", "NSObject"])]
            var references: [PropertyListValue] = []
            for element in elements {
                objects.append(element)
                references.append(Self.uid(objects.count))
            }
            objects[0] = Self.instance(2, [("NS.objects", .array(references))])
            return Self.archive(objects)
        }
        #expect(try Self.diff(set(["a", "b", 3]), set([3, "b", "a"])) == [])
        #expect(try Self.diff(set(["a", "b"]), set(["b", "c"])) == [#"root[0]: only in A: set element "a""#, #"root[1]: only in B: set element "c""#])
    }

    /// The compiled-nib case (`NSVisibleWindows`): an `NSMutableSet` holding a window template
    /// whose fields hold an `NSDictionary` and an `NSSet`, written by another program with the
    /// dictionary's keys, the inner set's elements and the outer set's elements in another
    /// order, and with an icon object that one side shares (the window's and the dictionary's)
    /// and the other stores twice. The set elements are still matched (a fingerprint is
    /// independent of dictionary key order, set order and sharing); a changed value deep
    /// inside makes the element another one.
    @Test func setElementsMatchWhateverOrderTheirDictionariesAndSetsHaveInside() throws {
        func nib(reversed: Bool, title: String = "Main", shareIcon: Bool = true) -> PropertyListValue {
            // 1 the outer set, 3 the window, 5 the dictionary, 7 the inner set, 9 a panel,
            // 10 the icon, 11 its copy; even numbers are class dictionaries.
            var objects: [PropertyListValue] = Array(repeating: "", count: 12)
            func string(_ text: String) -> PropertyListValue {
                objects.append(.string(text))
                return Self.uid(objects.count)
            }
            let keys = ["NSWindowTitle", "NSWindowClass", "NSIcon"].map(string)
            let icon = Self.uid(10), copy = Self.uid(shareIcon ? 10 : 11)
            let values = [string(title), string("NSWindow"), copy]
            let order = reversed ? [2, 0, 1] : [0, 1, 2]
            let tags = ["a", "b", "c"].map(string)
            let iconName = string("NSApplicationIcon")
            objects[0] = Self.instance(2, [("NS.objects", .array(reversed ? [Self.uid(9), Self.uid(3)] : [Self.uid(3), Self.uid(9)]))])
            objects[1] = Self.classDictionary(["NSMutableSet", "NSSet", "NSObject"])
            objects[2] = Self.instance(4, [("NSWindowStyleMask", 15), ("NSViewControllerInfo", Self.uid(5)), ("NSTags", Self.uid(7)), ("NSIcon", icon)])
            objects[3] = Self.classDictionary(["NSWindowTemplate", "NSObject"])
            objects[4] = Self.instance(6, [("NS.keys", .array(order.map { keys[$0] })), ("NS.objects", .array(order.map { values[$0] }))])
            objects[5] = Self.classDictionary(["NSDictionary", "NSObject"])
            objects[6] = Self.instance(8, [("NS.objects", .array(reversed ? tags.reversed() : tags))])
            objects[7] = Self.classDictionary(["NSSet", "NSObject"])
            objects[8] = Self.instance(4, [("NSWindowStyleMask", 1), ("NSTags", Self.uid(7))])
            objects[9] = Self.instance(12, [("NSResourceName", iconName)])
            objects[10] = Self.instance(12, [("NSResourceName", iconName)])
            objects[11] = Self.classDictionary(["NSCustomResource", "NSObject"])
            return Self.archive(objects)
        }
        // Only the icon's sharing differs, and only the strict comparison says so.
        #expect(try Self.diff(nib(reversed: false), nib(reversed: true), valuesOnly: true) == [])
        #expect(try Self.diff(nib(reversed: false), nib(reversed: true, shareIcon: false), valuesOnly: true) == [])
        #expect(try Self.diff(nib(reversed: false), nib(reversed: true)) == [])
        let strict = try Self.diff(nib(reversed: false), nib(reversed: true, shareIcon: false))
        #expect(strict.count == 1 && strict[0].contains("sharing changed"), "\(strict)")
        // A changed title is another element: the set says which is only in A and only in B.
        let changed = try Self.diff(nib(reversed: false), nib(reversed: true, title: "Other"), valuesOnly: true)
        #expect(changed == ["root[0]: only in A: set element NSWindowTemplate object", "root[1]: only in B: set element NSWindowTemplate object"], "\(changed)")

        // The fingerprints themselves: equal across the orders, and different for the change.
        let a = DiffSide(graph: try Self.graph(nib(reversed: false)))
        let b = DiffSide(graph: try Self.graph(nib(reversed: true, shareIcon: false)))
        let c = DiffSide(graph: try Self.graph(nib(reversed: true, title: "Other")))
        #expect(a.fingerprint(Self.uid(1)) == b.fingerprint(Self.uid(1)))
        #expect(a.fingerprint(Self.uid(3)) == b.fingerprint(Self.uid(3)))
        #expect(a.fingerprint(Self.uid(3)) != c.fingerprint(Self.uid(3)))
        #expect(!a.fingerprint(Self.uid(1)).contains("…"))
    }

    /// Fingerprints stay within their budget and stay canonical when cut: a set of 600
    /// elements (more than the steps) is written by its count, and a wide dictionary inside a
    /// set element gives each entry the same share in either order.
    @Test func fingerprintsAreBoundedAndCanonicalWhenCut() throws {
        func wide(_ count: Int, reversed: Bool) throws -> DiffSide {
            var objects: [PropertyListValue] = ["", Self.classDictionary(["NSDictionary", "NSObject"])]
            var keys: [PropertyListValue] = [], values: [PropertyListValue] = []
            for index in 0..<count {
                objects.append(.string("key\(index)")); keys.append(Self.uid(objects.count))
                objects.append(.string(String(repeating: "v", count: index))); values.append(Self.uid(objects.count))
            }
            if reversed { keys.reverse(); values.reverse() }
            objects[0] = Self.instance(2, [("NS.keys", .array(keys)), ("NS.objects", .array(values))])
            return DiffSide(graph: try Self.graph(Self.archive(objects)))
        }
        for count in [10, 300, 600] {
            let forward = try wide(count, reversed: false).fingerprint(Self.uid(1))
            #expect(forward == (try wide(count, reversed: true).fingerprint(Self.uid(1))), "\(count)")
            // 10 entries fit whole; 300 get one step each, so each is cut.
            #expect(forward.contains("…") == (count > 10), "\(count)")
        }
        #expect(try wide(600, reversed: false).fingerprint(Self.uid(1)).hasPrefix("NSDictionary(600…"))
    }

    @Test func plainPropertyListsCompareByPath() {
        let a: PropertyListValue = ["name": "x", "sizes": [1, 2], "tags": ["k": true]]
        let b: PropertyListValue = ["sizes": [1, 2, 3], "name": "y", "extra": 1, "tags": ["k": true]]
        #expect(ArchiveDiff(propertyList: a, b).differences.map(\.description) == [
            "root.extra: only in B: integer 1",
            #"root.name: value changed: "x" → "y""#,
            "root.sizes: count changed: 2 elements → 3 elements",
        ])
        #expect(ArchiveDiff(propertyList: a, a).isEqual)
    }

    @Test func differencesAreCapped() throws {
        let a: PropertyListValue = .array((0..<10).map { .int($0) })
        let b: PropertyListValue = .array((0..<10).map { .int($0 + 1) })
        var options = ArchiveDiff.Options()
        options.maximumDifferences = 3
        let diff = ArchiveDiff(propertyList: a, b, options: options)
        #expect(diff.differences.count == 3)
        #expect(diff.omittedCount == 7)
        #expect(!diff.isEqual)
        #expect(diff.description.hasSuffix("… and 7 more differences"))
    }

    /// A wide archive — fifty pilots in an array, each with two fields and an airplane of two
    /// fields — with differences at two levels and an airplane shared in A only: reported level
    /// by level, in array and field order, each by its path (the walk takes an object's fields
    /// and an array's elements as one group, and makes paths only where it needs them); the
    /// cap and the pair budget stop inside a group where they stopped pair by pair.
    @Test func wideLevelsAreReportedInBreadthFirstOrder() throws {
        func fleet(changed: Bool) -> PropertyListValue {
            // 1: the array, 2: Pilot class, 3: Airplane class, 4: NSArray class; then per pilot
            // a pilot, its name and its airplane (whose registration is inline).
            var objects: [PropertyListValue] = [
                Self.instance(4, [("NS.objects", .array((0..<50).map { Self.uid(5 + 3 * $0) }))]),
                Self.classDictionary(["Pilot", "NSObject"]), Self.classDictionary(["Airplane", "NSObject"]), Self.classDictionary(["NSArray", "NSObject"]),
            ]
            for index in 0..<50 {
                let pilot = 5 + 3 * index
                // In A, pilot 11 flies pilot 10's airplane; in B an equal one of its own.
                let plane = changed || index != 11 ? pilot + 2 : pilot - 1
                let hours = changed && index == 3 ? 31 : 30
                let name = changed && index == 40 ? "Renamed" : "Pilot \(index)"
                let registration = changed && index == 2 ? "N-2x" : "N-\(index)"
                let seats = changed && index == 7 ? 5 : 4
                objects.append(Self.instance(2, [("hours", .int(hours)), ("name", Self.uid(pilot + 1)), ("plane", Self.uid(plane))]))
                objects.append(.string(name))
                objects.append(Self.instance(3, [("registration", .string(index == 11 ? "N-10" : registration)), ("seats", .int(seats))]))
            }
            return Self.archive(objects)
        }
        // Level by level; within a level, pilot by pilot and field by field (pilot 11's plane
        // before pilot 40's name).
        let expected = [
            "root[3].hours: value changed: integer 30 → integer 31",
            "root[11].plane: sharing changed: in A the same object as root[10].plane; in B another object",
            #"root[40].name: value changed: "Pilot 40" → "Renamed""#,
            #"root[2].plane.registration: value changed: "N-2" → "N-2x""#,
            "root[7].plane.seats: value changed: integer 4 → integer 5",
        ]
        let a = try Self.graph(fleet(changed: false)), b = try Self.graph(fleet(changed: true))
        #expect(ArchiveDiff(a, b).differences.map(\.description) == expected)
        #expect(ArchiveDiff(a, a).isEqual && ArchiveDiff(b, b).isEqual)
        var capped = ArchiveDiff.Options()
        capped.maximumDifferences = 3
        let diff = ArchiveDiff(a, b, options: capped)
        #expect(diff.differences.map(\.description) == Array(expected.prefix(3)) && diff.omittedCount == 2)
        // Object pairs (names are plain strings, not pairs): the array, then pilots 0 to 49, then
        // each pilot's airplane among its fields. 45 stops inside the pilots' group, before any
        // field; 55 inside pilot 4's fields (airplanes 0 to 3 compared), after pilot 3's hours.
        var budget = ArchiveDiff.Options()
        budget.maximumObjectPairs = 45
        let stoppedAmongPilots = ArchiveDiff(a, b, options: budget)
        #expect(stoppedAmongPilots.differences.isEmpty && stoppedAmongPilots.incompleteReason != nil)
        budget.maximumObjectPairs = 55
        let stopped = ArchiveDiff(a, b, options: budget)
        #expect(stopped.differences.map(\.description) == [expected[0]], "\(stopped.differences)")
        #expect(stopped.incompleteReason != nil)
    }

    /// A linked list 20,000 objects long: compared without recursion.
    @Test func longChainsNeedNoStack() throws {
        func chain(last: PropertyListValue) -> PropertyListValue {
            let count = 20_000
            var objects: [PropertyListValue] = [Self.classDictionary(["Node", "NSObject"])]
            for index in 0..<count {
                let next: PropertyListValue = index + 1 < count ? Self.uid(index + 3) : last
                objects.append(Self.instance(1, [("next", next)]))
            }
            return Self.archive(objects, top: [("root", Self.uid(2))])
        }
        #expect(try Self.diff(chain(last: 1), chain(last: 1)) == [])
        let lines = try Self.diff(chain(last: 1), chain(last: 2))
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix(".next.next: value changed: integer 1 → integer 2") == true, "\(lines)")
    }

    /// Every Apple archive our encoder can rebuild through the public API compares equal to
    /// its rebuild, binary and XML: the rewrite keeps the graph, whatever its bytes.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func appleFixturesEqualTheirFaithfulRewrites() throws {
        var compared = 0
        // Files up to 64 KB: the larger ones only take longer to rebuild.
        for entry in ArchiveFixtures.entries where entry.format == "binary" {
            let apple = try ArchiveFixtures.bytes(entry)
            guard apple.count <= 64 << 10 else { continue }
            guard let graph = try? ArchiveGraph(bytes: apple), let ours = try GraphRebuilder.rebuild(graph) else { continue }
            let diff = ArchiveDiff(graph, try ArchiveGraph(bytes: ours))
            #expect(diff.isEqual, "\(entry): \(diff.differences.prefix(3).map(\.description))")
            compared += 1
        }
        #expect(compared > 40)
        // And one rewrite with a value changed is caught with its path.
        let apple = try ArchiveFixtures.bytes("bpylist2/complex_archive.plist")
        var plist = try PropertyListCodec.decode(apple)
        guard case .dictionary(var root) = plist, case .array(var objects)? = root["$objects"],
              let index = objects.firstIndex(where: { $0.stringValue != nil && $0.stringValue != "$null" }) else {
            Issue.record("complex_archive.plist has no string object")
            return
        }
        objects[index] = "changed"
        root["$objects"] = .array(objects)
        plist = .dictionary(root)
        let lines = ArchiveDiff(try ArchiveGraph(bytes: apple), try ArchiveGraph(propertyList: plist)).differences.map(\.description)
        #expect(lines.count == 1 && lines[0].contains(#"value changed: ""#) && lines[0].hasSuffix(#"→ "changed""#), "\(lines)")
    }
}
