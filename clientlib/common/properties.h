#pragma once

// Reader for RocketMQ's configuration files (Java .properties format: `key=value`, `key: value`
// or `key value`; `#`/`!` comments; backslash line continuation; \t \n \r \f \\ \uXXXX escapes)
// and ConfigSchema, which binds keys to the fields of a typed config struct, reports unknown
// keys and bad values, and prints every setting the way `-p`/`-m` do.
//
// QSettings cannot do this: its INI flavour escapes keys, adds [General] and guesses types.

#include "clientlib/common/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

namespace qrocket {

struct PropertyEntry
{
    QString key;
    QString value;
    int line = 0; // 1-based line of the key in the source text
};
using Properties = QList<PropertyEntry>;

/// Parses properties text (UTF-8; Java 9+ reads properties files as UTF-8 too). Never fails on
/// content; duplicates are kept in order (the last one wins when applied).
Properties parseProperties(QByteArrayView text);
/// Reads and parses a file; IoError when it cannot be read.
Result<Properties> loadPropertiesFile(const QString &path);
/// Writes `key=value` lines with the escapes Java's Properties.store uses for keys and values.
QByteArray formatProperties(const QList<std::pair<QString, QString>> &entries);

/// Binds config keys to typed fields. The pointed-to fields must outlive the schema.
class ConfigSchema
{
public:
    using Field = std::variant<int *, std::int64_t *, bool *, double *, QString *>;

    void add(const char *key, Field field, bool important = false);

    /// Applies `props` in order. Unknown keys are collected in `unknownKeys` (and are not an
    /// error); a value that does not parse as the field's type is an InvalidArgument naming the
    /// key, the value and the line.
    Status apply(const Properties &props, QStringList *unknownKeys = nullptr);
    /// Sets one key; NotFound for an unknown key, InvalidArgument for a bad value.
    Status set(const QString &key, const QString &value);
    /// The current value of a key as text ("true"/"false", decimal numbers), or a null QString.
    QString value(const QString &key) const;
    bool contains(const QString &key) const;

    /// `key=value` lines, one per setting, in registration order.
    QString print(bool importantOnly = false) const;
    QList<std::pair<QString, QString>> entries(bool importantOnly = false) const;

private:
    struct Item
    {
        QString key;
        Field field;
        bool important;
    };
    const Item *find(const QString &key) const;
    std::vector<Item> m_items;
};

} // namespace qrocket
