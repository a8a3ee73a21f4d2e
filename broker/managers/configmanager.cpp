#include "broker/managers/configmanager.h"

#include "broker/common/logging.h"
#include "broker/config/configfilestore.h"

namespace qrocket::broker {

ConfigManager::ConfigManager(QString path, const char *what) : m_path(std::move(path)), m_what(what)
{ }

ConfigManager::~ConfigManager() = default;

void ConfigManager::enableJournal()
{
    if (!m_journal)
        m_journal = std::make_unique<ConfigJournal>(m_path);
}

Status ConfigManager::applyJournalRecord(QByteArrayView)
{
    return Status::notSupported(QStringLiteral("this table has no journal"));
}

Status ConfigManager::load()
{
    const Status st
        = ConfigFileStore::load(m_path, [this](const QByteArray &text) { return decode(text); });
    if (st.code() == Status::Code::NotFound) {
        qCInfo(lcBroker).noquote() << "no" << m_path << "yet; starting with no stored" << m_what;
    } else if (st) {
        m_fileWritten = true;
        qCInfo(lcBroker).noquote() << "loaded" << m_what << "from" << m_path;
    } else {
        return st;
    }
    if (!m_journal)
        return {};
    auto replayed
        = m_journal->replay([this](QByteArrayView payload) { return applyJournalRecord(payload); });
    if (!replayed)
        return replayed.error();
    if (*replayed > 0) {
        m_flushPending = true;
        qCInfo(lcBroker).noquote() << "replayed" << *replayed << "journaled changes of" << m_what;
    }
    return {};
}

std::optional<std::int64_t> ConfigManager::appendChange(
    const std::function<QByteArray()> &change, Status &done)
{
    Result<std::int64_t> ticket = std::int64_t(0);
    {
        std::lock_guard order(m_orderMutex);
        const QByteArray record = change();
        if (record.isEmpty()) {
            done = {};
            return std::nullopt;
        }
        if (!m_journal)
            ticket = Status::notSupported(QString());
        else
            ticket = m_journal->append(record);
    }
    if (!ticket) {
        if (m_journal)
            qCWarning(lcBroker).noquote() << ticket.error().message() << "- writing the whole file";
        done = persist();
        return std::nullopt;
    }
    if (!m_fileWritten) {
        // The first change: the file RocketMQ's tools read appears at once.
        if (std::optional<Status> written = persistFirst()) {
            done = *written;
            return std::nullopt;
        }
    }
    return *ticket;
}

Status ConfigManager::persistAfterFailedSync(const Status &failed)
{
    qCWarning(lcBroker).noquote() << failed.message() << "- writing the whole file";
    return persist();
}

void ConfigManager::compactIfDue()
{
    if (m_journal->recordsSinceRotate() >= m_compactAfter.load())
        persist(); // the change is durable already; a failure is logged and retried later
}

Status ConfigManager::commitChange(const std::function<QByteArray()> &change)
{
    Status done;
    const std::optional<std::int64_t> ticket = appendChange(change, done);
    if (!ticket)
        return done;
    if (Status st = m_journal->sync(*ticket); !st)
        return persistAfterFailedSync(st);
    compactIfDue();
    return {};
}

void ConfigManager::commitChangeAsync(
    const std::function<QByteArray()> &change, CommitCallback done)
{
    Status now;
    const std::optional<std::int64_t> ticket = appendChange(change, now);
    if (!ticket) {
        done(now);
        return;
    }
    m_journal->syncAsync(*ticket, [this, done = std::move(done)](const Status &st) {
        done(st ? st : persistAfterFailedSync(st));
    });
    compactIfDue();
}

void ConfigManager::waitForCommits()
{
    if (m_journal)
        m_journal->waitForAsync();
}

Status ConfigManager::flushJournal()
{
    if (!m_journal)
        return {};
    if (m_journal->recordsSinceRotate() == 0 && !m_flushPending.exchange(false))
        return {};
    return persist();
}

Status decodeOffsetTable(
    QByteArrayView json, const std::function<Status(const protocol::JsonValue &table)> &read)
{
    auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    const protocol::JsonValue &table = (*parsed)["offsetTable"];
    if (!parsed->isObject() || !table.isObject())
        return Status::corruption(QStringLiteral("no offsetTable object"));
    return read(table);
}

Status decodeIntOffsets(
    const protocol::JsonValue &object, IntOffsets &out, int minKey, const QString &where)
{
    if (!object.isObject())
        return Status::corruption(QStringLiteral("offsets of %1 are not an object").arg(where));
    for (const auto &[key, offset] : object.members()) {
        bool ok = false;
        const int id = key.toString().toInt(&ok);
        if (!ok || id < minKey || !offset.isNumber())
            return Status::corruption(QStringLiteral("bad offset entry '%1' in %2")
                                          .arg(QString::fromUtf8(key.toString()), where));
        out[id] = offset.toInteger();
    }
    return {};
}

void writeIntOffsets(protocol::JsonWriter &w, const IntOffsets &offsets)
{
    w.beginObject();
    for (const auto &[id, offset] : offsets)
        w.key(QByteArray::number(id)).value(offset);
    w.endObject();
}

Status ConfigManager::persist()
{
    std::lock_guard lock(m_persistMutex);
    return persistLocked();
}

std::optional<Status> ConfigManager::persistFirst()
{
    std::lock_guard lock(m_persistMutex);
    if (m_fileWritten)
        return std::nullopt;
    return persistLocked();
}

Status ConfigManager::persistLocked()
{
    // Close the journal's generation before encoding: every record in a closed generation is
    // then in the table that encode() reads, so the new file covers them all. Records appended
    // after the rotation go to the next generation and are replayed over the file (replaying a
    // change the file already has is harmless: records carry whole entries).
    std::int64_t closed = 0;
    if (m_journal) {
        auto rotated = m_journal->rotate();
        if (!rotated) {
            qCWarning(lcBroker).noquote()
                << "persisting" << m_what << "failed:" << rotated.error().message();
            return rotated.error();
        }
        closed = *rotated;
    }
    const Status st = ConfigFileStore::write(m_path, encode());
    if (!st) {
        qCWarning(lcBroker).noquote() << "persisting" << m_what << "failed:" << st.message();
        return st;
    }
    m_fileWritten = true;
    if (m_journal) {
        m_journal->removeUpTo(closed);
        m_compactAfter = compactThreshold();
    }
    return st;
}

} // namespace qrocket::broker
