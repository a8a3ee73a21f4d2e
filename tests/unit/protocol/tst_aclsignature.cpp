// The request signature against frames real clients signed: mqadmin 4.9.7 (stock tools.yml:
// accessKey rocketmq2, secretKey 12345678) and rocketmq-client-cpp 2.2.0 (empty keys), captured
// in tests/data/vectors; then the signing side (aclSign) and the constant-time comparison.

#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/hmacsha1.h"
#include "goldenvectors.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QTest>

#include <algorithm>

using namespace qrocket;
using namespace qrocket::protocol;

class tst_AclSignature final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void realClientsSignaturesVerify()
    {
        QVERIFY2(testing::vectorsProblem().isEmpty(), qPrintable(testing::vectorsProblem()));
        int java = 0;
        int cpp = 0;
        for (const testing::GoldenFrame &f : testing::loadGoldenFrames()) {
            if (f.kind == QLatin1String("response") || !f.header.contains("\"Signature\""))
                continue;
            RemotingCommand cmd;
            QVERIFY(decodeFrame(f.frame, cmd).status == DecodeStatus::Ok);
            const QByteArray *key = cmd.ext(kAclAccessKey);
            const QByteArray *signature = cmd.ext(kAclSignature);
            QVERIFY(key && signature);
            const QByteArray secret = *key == "rocketmq2" ? QByteArray("12345678") : QByteArray();
            // The broker leaves _UNIQUE_KEY_QUERY out; a Java client that signed it is the
            // other variant (PlainAclConfig accepts both).
            const bool ok = aclSignature(secret, cmd, kAclUniqueKeyQuery) == *signature
                || aclSignature(secret, cmd) == *signature;
            QVERIFY2(ok,
                qPrintable(
                    QStringLiteral("frame %1 (%2, code %3)").arg(f.id).arg(f.client).arg(f.code)));
            (*key == "rocketmq2" ? java : cpp) += 1;
            // One changed byte anywhere signed breaks it.
            RemotingCommand tampered = cmd;
            if (!tampered.body.isEmpty())
                tampered.body[0] = char(tampered.body[0] ^ 1);
            else
                tampered.extFields.front().second.append('x');
            if (tampered.extFields.front().first != kAclSignature) {
                QVERIFY(aclSignature(secret, tampered, kAclUniqueKeyQuery) != *signature);
            }
        }
        QVERIFY2(java >= 40, qPrintable(QString::number(java)));
        QVERIFY2(cpp >= 10, qPrintable(QString::number(cpp)));
    }

    void signThenVerify()
    {
        RemotingCommand r = RemotingCommand::createRequest(310);
        r.setExt("b", QByteArray("TopicA"));
        r.setExt("a", QByteArray("PG"));
        r.body = "hello";
        aclSign(r, "AK_user_1", "SK_secret_1", "token-1");
        QCOMPARE(r.extString(kAclAccessKey), QByteArrayView("AK_user_1"));
        QCOMPARE(r.extString(kAclSecurityToken), QByteArrayView("token-1"));
        // Sorted keys: AccessKey, SecurityToken, a, b; then the body.
        QCOMPARE(*r.ext(kAclSignature), aclSignature("SK_secret_1", r));
        QByteArray content = "AK_user_1token-1PGTopicAhello";
        QCOMPARE(*r.ext(kAclSignature),
            QMessageAuthenticationCode::hash(content, "SK_secret_1", QCryptographicHash::Sha1)
                .toBase64());
        // Signing again replaces the old signature (never signs it).
        const QByteArray first = *r.ext(kAclSignature);
        aclSign(r, "AK_user_1", "SK_secret_1", "token-1");
        QCOMPARE(*r.ext(kAclSignature), first);
    }

    void duplicateKeysLastWins()
    {
        RemotingCommand r = RemotingCommand::createRequest(10);
        r.extFields.emplace_back("topic", "A");
        r.extFields.emplace_back("topic", "B");
        QCOMPARE(aclSignature("k", r),
            QMessageAuthenticationCode::hash("B", "k", QCryptographicHash::Sha1).toBase64());
    }

    void extFieldOrderFindsDuplicates()
    {
        RemotingCommand r = RemotingCommand::createRequest(10);
        for (int i = 60; i > 0; --i) // more fields than are kept on the stack
            r.extFields.emplace_back("k" + QByteArray::number(i), QByteArray::number(i));
        QCOMPARE(ExtFieldOrder(r).duplicate(), nullptr);
        r.extFields.emplace_back("k7", "again");
        const ExtFieldOrder many(r);
        QVERIFY(many.duplicate());
        QCOMPARE(*many.duplicate(), QByteArray("k7"));
        // Stable: the later "k7" comes second, so its value is the one signed.
        QByteArray content;
        std::vector<QByteArray> keys;
        for (const auto &[k, v] : r.extFields)
            keys.push_back(k);
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        for (const QByteArray &k : keys)
            content += k == "k7" ? QByteArray("again") : k.mid(1);
        QCOMPARE(aclSignature("key", many),
            QMessageAuthenticationCode::hash(content, "key", QCryptographicHash::Sha1).toBase64());

        RemotingCommand few = RemotingCommand::createRequest(10);
        few.extFields.emplace_back("b", "1");
        few.extFields.emplace_back("a", "2");
        QCOMPARE(ExtFieldOrder(few).duplicate(), nullptr);
        few.extFields.emplace_back("b", "3");
        QCOMPARE(*ExtFieldOrder(few).duplicate(), QByteArray("b"));
    }

    void hmacBackendsAgreeWithQt_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("data");
        QTest::newRow("empty key") << QByteArray() << QByteArray("abc");
        QTest::newRow("short key, empty data") << QByteArray("12345678") << QByteArray();
        QTest::newRow("64-byte key") << QByteArray(64, 'k') << QByteArray(1024, 'x');
        QTest::newRow("65-byte key (hashed)") << QByteArray(65, 'k') << QByteArray(4097, 'y');
        QTest::newRow("binary") << QByteArray("\0\x80\xff", 3) << QByteArray("\0\0\0", 3);
    }

    void hmacBackendsAgreeWithQt()
    {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, data);
        const QByteArray expected
            = QMessageAuthenticationCode::hash(data, key, QCryptographicHash::Sha1);
        for (const auto backend : {HmacSha1::Backend::Auto, HmacSha1::Backend::Qt}) {
            HmacSha1 mac(key, backend);
            // Fed in uneven pieces, as the signature feeds fields.
            for (qsizetype off = 0; off < data.size(); off += 7)
                mac.addData(
                    QByteArrayView(data).sliced(off, std::min<qsizetype>(7, data.size() - off)));
            const HmacSha1::Digest d = mac.result();
            QCOMPARE(QByteArray(reinterpret_cast<const char *>(d.data()), 20), expected);
        }
        // Two alive on one thread (the second gets its own digest context).
        HmacSha1 outer(key);
        HmacSha1 inner(key);
        outer.addData(data);
        inner.addData(data);
        const HmacSha1::Digest a = outer.result();
        const HmacSha1::Digest b = inner.result();
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(a.data()), 20), expected);
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(b.data()), 20), expected);
        qInfo("HMAC backend: %s", HmacSha1::autoBackendName());
    }

    void constantTimeEquality()
    {
        QVERIFY(constantTimeEquals("abc", "abc"));
        QVERIFY(!constantTimeEquals("abc", "abd"));
        QVERIFY(!constantTimeEquals("abc", "ab"));
        QVERIFY(constantTimeEquals("", ""));
    }
};

QTEST_GUILESS_MAIN(tst_AclSignature)
#include "tst_aclsignature.moc"
