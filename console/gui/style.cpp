// The console's palette, status colours and icons (see style.h).

#include "console/gui/style.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

static void initQrcConsole()
{
    Q_INIT_RESOURCE(console);
}

namespace qrocket::console {

void initConsoleResources()
{
    initQrcConsole();
}

void applyConsoleStyle(QApplication &app, bool dark)
{
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (!dark)
        return;
    QPalette p;
    const QColor window(0x25, 0x28, 0x2c);
    const QColor base(0x1b, 0x1d, 0x21);
    const QColor text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x22, 0x25, 0x2a));
    p.setColor(QPalette::ToolTipBase, QColor(0x30, 0x33, 0x38));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x32, 0x36, 0x3b));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Link, QColor(0x6c, 0xb6, 0xff));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb3));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8f, 0x96));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x84, 0x8a));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x84, 0x8a));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x84, 0x8a));
    app.setPalette(p);
}

QColor okColor()
{
    return {0x4c, 0xc3, 0x6a};
}

QColor warnColor()
{
    return {0xf0, 0xb4, 0x29};
}

QColor badColor()
{
    return {0xff, 0x6b, 0x6b};
}

QColor staleColor()
{
    return {0x80, 0x84, 0x8a};
}

QColor livenessColor(Liveness l)
{
    switch (l) {
    case Liveness::Live:
        return okColor();
    case Liveness::Late:
        return warnColor();
    case Liveness::Expired:
        return badColor();
    case Liveness::Unknown:
        break;
    }
    return staleColor();
}

QIcon livenessIcon(Liveness l)
{
    switch (l) {
    case Liveness::Live:
        return QIcon(QStringLiteral(":/console/icons/live.png"));
    case Liveness::Late:
        return QIcon(QStringLiteral(":/console/icons/late.png"));
    case Liveness::Expired:
        return QIcon(QStringLiteral(":/console/icons/expired.png"));
    case Liveness::Unknown:
        break;
    }
    return QIcon(QStringLiteral(":/console/icons/unknown.png"));
}

QIcon appIcon()
{
    return QIcon(QStringLiteral(":/console/icons/qrocket-console.png"));
}

} // namespace qrocket::console
