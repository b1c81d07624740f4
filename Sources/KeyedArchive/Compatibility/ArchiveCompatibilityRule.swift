/// A named kind of change between two schemas, as ``ArchiveCompatibility`` reports it. The raw
/// value is the name `keyedarchive compat` prints and `--ignore` takes.
///
/// Which direction a change breaks is decided per change (``ArchiveCompatibility/Change/breaks``),
/// from one assumption NSCoding relies on: a version reads the keys it writes. A key written
/// in every instance (and never `$null`) is one its readers require; a key written only
/// sometimes is one they treat as optional.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveCompatibilityRule: String, CaseIterable, Hashable, Sendable {
    /// A class old archives hold is unknown to the new version (and no new class has its keys):
    /// new readers refuse it where they meet it. Breaks backward.
    case classRemoved = "class-removed"
    /// A class old archives hold is gone and a new class with the same keys appeared: likely a
    /// rename. New readers refuse the old name, old readers the new one, unless aliased.
    case classRenamed = "class-renamed"
    /// The same class under another module-qualified name (`MyApp.Pilot` → `Pilot` or
    /// `Core.Pilot`): the classic "cannot decode object of class" crash. Breaks both ways
    /// unless each side registers the other's name as an alias.
    case classModuleChanged = "class-module-changed"
    /// A class's archived `$classes` chain changed (a superclass moved, a class inserted).
    /// Readers that know the class by name decode it as before; the keys the move adds or takes
    /// away are reported by the key rules.
    case classChainChanged = "class-chain-changed"
    /// A class the old version does not know appears in new archives; where it appears under a
    /// key old readers read, they refuse it (an allowlist refusal). Breaks forward.
    case classAdded = "class-added"
    /// A key is no longer written. Breaks forward when old readers required it.
    case keyRemoved = "key-removed"
    /// A key is newly written. Breaks backward when new readers require it (old archives lack
    /// it), unless they decode it with `decodeIfPresent` and a default.
    case keyAdded = "key-added"
    /// A key is no longer written and another key of the same class holds what it held (the
    /// same kinds, and, where both sides are archives, the same values): the value moved. Old
    /// readers that require the old key and new readers that require the new one both break;
    /// the fix keeps the value: new readers read the new key falling back to the old one, and
    /// new versions write the old key too, with the real value, while old readers remain.
    case keyRenamed = "key-renamed"
    /// A key every old instance had is now written only sometimes. Breaks forward when old
    /// readers required it.
    case keyBecameOptional = "key-became-optional"
    /// A key old instances had only sometimes is now always written. Breaks backward when new
    /// readers require it.
    case keyBecameRequired = "key-became-required"
    /// `$null` newly stored under a key old archives always filled. Breaks forward when old
    /// readers required a value.
    case nullAdded = "null-added"
    /// `$null` no longer stored under a key where old archives had it. Breaks backward when new
    /// readers require a value.
    case nullRemoved = "null-removed"
    /// The kind of value under a key changed: integer ↔ real ↔ string ↔ data ↔ boolean ↔ date ↔
    /// object. Breaks forward for new kinds old readers cannot read, backward for old kinds new
    /// readers cannot; a reader that decodes a real takes an integer too.
    case kindChanged = "kind-changed"
    /// A value moved between inline storage and an object reference (`encodeInt:` ↔ an
    /// `NSNumber`). Breaks as ``kindChanged`` does.
    case storageChanged = "storage-changed"
    /// A collection became another kind of collection (NSArray ↔ NSSet ↔ NSOrderedSet ↔
    /// NSDictionary). Breaks as ``kindChanged`` does.
    case collectionChanged = "collection-changed"
    /// The classes of the objects under a key changed: a class old readers do not admit there
    /// breaks forward; a class new readers no longer admit there breaks backward.
    case classChanged = "class-changed"
    /// An integer now needs a wider width than old archives ever used: a warning, since old
    /// readers that decode a narrower type may truncate or refuse it.
    case integerWidened = "integer-widened"
    /// The kinds of a collection's elements (or a dictionary's keys) changed.
    case elementKindChanged = "element-kind-changed"
    /// The classes of a collection's elements changed: widened breaks forward (old readers meet
    /// a class they do not admit), narrowed breaks backward.
    case elementClassChanged = "element-class-changed"
    /// A `$top` key is newly written. Breaks backward when new readers require it.
    case topKeyAdded = "top-key-added"
    /// A `$top` key is no longer written. Breaks forward when old readers required it.
    case topKeyRemoved = "top-key-removed"
    /// What a `$top` key holds changed (its kind, its class, whether it is always there or ever
    /// `$null`). Breaks as the same change under a class's key does.
    case topKeyChanged = "top-key-changed"

    /// One line on what the rule means, for `keyedarchive compat --help` and the docs.
    public var summary: String {
        switch self {
        case .classRemoved: return "a class old archives hold is unknown to the new version (backward)"
        case .classRenamed: return "a class is gone and a new one has its keys: likely renamed (backward, forward)"
        case .classModuleChanged: return "the same class under another module-qualified name, MyApp.Pilot → Core.Pilot (backward, forward)"
        case .classChainChanged: return "a class's $classes chain changed: a superclass moved, a class inserted (reported; the keys it moves are checked)"
        case .classAdded: return "a class old readers do not know appears where they read (forward)"
        case .keyRemoved: return "a key is no longer written (forward, when old readers required it)"
        case .keyAdded: return "a key is newly written (backward, when new readers require it)"
        case .keyRenamed: return "a key's value moved to another key of the class: renamed (forward and backward, when readers require them)"
        case .keyBecameOptional: return "a key always written is now written only sometimes (forward)"
        case .keyBecameRequired: return "a key written only sometimes is now always written (backward)"
        case .nullAdded: return "$null now stored under a key old archives always filled (forward)"
        case .nullRemoved: return "$null no longer stored under a key old archives sometimes left nil (backward)"
        case .kindChanged: return "integer ↔ real ↔ string ↔ data ↔ bool ↔ date ↔ object (forward for new kinds, backward for gone ones; readers of reals take integers)"
        case .storageChanged: return "inline scalar ↔ object reference, encodeInt: ↔ NSNumber (as kind-changed)"
        case .collectionChanged: return "NSArray ↔ NSSet ↔ NSOrderedSet ↔ NSDictionary (as kind-changed)"
        case .classChanged: return "the classes under a key: one old readers do not admit (forward), one new readers no longer admit (backward)"
        case .integerWidened: return "an integer wider than old archives ever held: old readers may truncate (warning, forward)"
        case .elementKindChanged: return "the kinds of a collection's elements or a dictionary's keys changed"
        case .elementClassChanged: return "the classes of a collection's elements: widened (forward), narrowed (backward)"
        case .topKeyAdded: return "a $top key is newly written (backward, when new readers require it)"
        case .topKeyRemoved: return "a $top key is no longer written (forward, when old readers required it)"
        case .topKeyChanged: return "what a $top key holds changed: kind, class, optional ↔ required, $null"
        }
    }
}
