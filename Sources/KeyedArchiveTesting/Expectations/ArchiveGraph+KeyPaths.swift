import KeyedArchive
import PropertyList

extension ArchiveGraph {
    /// The archived `$classes` chain of the object at `path` — the class first — following
    /// fields by key, `NSArray`/`NSSet` elements by index and `NSDictionary` entries by string
    /// key, as `ArchiveDiff` names them; empty when the path leads to no object with a class.
    /// Lets a pattern's `Class.key` form judge a difference, which carries only its path.
    func classChain(at path: ArchiveKeyPath) -> [String] {
        guard case .key(let topKey)? = path.components.first,
              var value = top.last(where: { $0.key == topKey })?.value else { return [] }
        for component in path.components.dropFirst() {
            guard let next = step(from: value, to: component) else { return [] }
            value = next
        }
        guard case .uid(let uid) = value, let descriptor = classDescriptor(of: uid) else { return [] }
        return descriptor.classes.isEmpty ? [descriptor.name] : descriptor.classes
    }

    private func step(from value: PropertyListValue, to component: ArchiveKeyPath.Component) -> PropertyListValue? {
        switch value {
        case .uid(let uid):
            switch object(uid) {
            case .instance(let instance)?:
                let elements = instance.value(forStoredKey: "NS.objects")?.arrayValue
                if let elements, let keys = instance.value(forStoredKey: "NS.keys")?.arrayValue, keys.count == elements.count {
                    guard case .key(let wanted) = component else { return nil }
                    return zip(keys, elements).first { key, _ in keyText(key) == wanted }?.1
                }
                if let elements, instance.storage.count == 2 {
                    guard case .index(let index) = component, elements.indices.contains(index) else { return nil }
                    return elements[index]
                }
                guard case .key(let key) = component else { return nil }
                return instance.value(forKey: key)
            case .other(let container)?:
                return step(from: container, to: component)
            default:
                return nil
            }
        case .array(let elements), .set(let elements):
            guard case .index(let index) = component, elements.indices.contains(index) else { return nil }
            return elements[index]
        case .dictionary(let dictionary):
            guard case .key(let key) = component else { return nil }
            return dictionary[key]
        default:
            return nil
        }
    }

    /// A dictionary key's text: a string, or an `NSString` object's `NS.string`.
    private func keyText(_ key: PropertyListValue) -> String? {
        guard case .uid(let uid) = key else { return key.stringValue }
        switch object(uid) {
        case .string(let string)?: return string
        case .instance(let instance)?:
            guard case .uid(let stored)? = instance.value(forStoredKey: "NS.string"), case .string(let string)? = object(stored) else {
                return instance.value(forStoredKey: "NS.string")?.stringValue
            }
            return string
        default: return nil
        }
    }
}
