// `import KeyedArchive` alone gives the types its API takes and returns — `PropertyListValue`
// (raw fields, untyped trees, the generic view), `PropertyListUID` (references and error
// locations), `PropertyListDictionary`, `PropertyListDate`, `PropertyListInteger`,
// `PropertyListReal`, `PropertyListError` (inside `ArchiveError`) and
// `PropertyListReadingOptions` (inside `ArchiveReadingOptions`) — so that a caller need not know
// which module declares them. The rest of the `PropertyList` module comes along with them.
@_exported import PropertyList
