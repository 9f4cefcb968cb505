#include "views/asm_listing.hpp"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <set>

namespace lego::views {

namespace {

// (file, line) as the compiler saw them -> the 0-based line of the source
// text: the first file is the text itself, then each #line N "name" starts
// numbering afresh.
class PresumedLines {
 public:
  explicit PresumedLines(const QString& source) {
    static const QRegularExpression directive(R"re(^\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?)re");
    const QStringList lines = source.split('\n');
    QString file;  // "" is the text's own name, whatever the compiler called it
    int line = 1;
    for (int k = 0; k < lines.size(); ++k) {
      if (const auto m = directive.match(lines[k]); m.hasMatch()) {
        line = m.captured(1).toInt();
        if (!m.captured(2).isEmpty()) file = m.captured(2);
        names_.insert(file);
        continue;
      }
      at_.insert(key(file, line), k);
      ++line;
    }
  }
  // NVRTC makes a #line name absolute ("/cwd/cuda/t.cu" for "cuda/t.cu"):
  // a name that ends with one of ours is ours.
  int find(const QString& file, int line) const {
    QString name = file;
    if (!names_.contains(name))
      for (const QString& known : names_)
        if (!known.isEmpty() && file.endsWith('/' + known)) name = known;
    if (!names_.contains(name)) name.clear();  // the compiler's name for the text itself
    const auto it = at_.find(key(name, line));
    return it == at_.end() ? -1 : *it;
  }

 private:
  static QString key(const QString& file, int line) { return file + '\n' + QString::number(line); }
  QHash<QString, int> at_;
  QSet<QString> names_;
};

bool is_label(const QString& t, QString& name) {
  static const QRegularExpression label(R"(^([A-Za-z_.$][\w.$]*):\s*(?:(?:#|//).*)?$)");
  const auto m = label.match(t);
  if (!m.hasMatch()) return false;
  name = m.captured(1);
  return true;
}

bool is_function_head(const QString& t, const QString& label) {
  return t.contains(".entry ") || t.contains(".func ") || (!label.isEmpty() && !label.startsWith(".L") && !label.startsWith('$'));
}

}  // namespace

AsmListing assembly_listing(const QString& assembly, const QString& source, bool hide_directives) {
  // DWARF 5 splits a name into a directory and a file: `.file 1 "cpu" "softmax.cpp"`.
  static const QRegularExpression file_entry(R"re(^\s*\.file\s+(\d+)\s+(?:"([^"]*)"\s+)?"([^"]*)")re");
  static const QRegularExpression loc(R"(^\s*\.loc\s+(\d+)\s+(\d+))");
  const PresumedLines presumed(source);
  QHash<int, QString> files;
  AsmListing out;
  const QStringList raw = assembly.split('\n');
  std::vector<int> from(static_cast<std::size_t>(raw.size()), -1);
  // The file table first: PTX lists it after the code.
  for (const QString& line : raw)
    if (const auto m = file_entry.match(line); m.hasMatch())
      files.insert(m.captured(1).toInt(), m.captured(2).isEmpty() ? m.captured(3) : m.captured(2) + '/' + m.captured(3));
  int current = -1;
  for (int k = 0; k < raw.size(); ++k) {
    if (const auto l = loc.match(raw[k]); l.hasMatch()) {
      out.has_line_info = true;
      const int line = l.captured(2).toInt();
      current = line == 0 ? -1 : presumed.find(files.value(l.captured(1).toInt()), line);
    } else if (raw[k].trimmed().startsWith(".Lfunc_end") || raw[k].trimmed() == "}") {
      current = -1;
    }
    from[static_cast<std::size_t>(k)] = current;
  }
  // The labels that kept lines name (jump targets, calls): the rest are the
  // line table's and the constant pools' own.
  std::set<QString> used;
  static const QRegularExpression reference(R"([A-Za-z_.$][\w.$]*)");
  QStringList kept_text;
  std::vector<int> kept;
  for (int k = 0; k < raw.size(); ++k) {
    const QString t = raw[k].trimmed();
    QString label;
    const bool comment = t.startsWith('#') || t.startsWith("//") || t.startsWith(';');
    const bool labelled = is_label(t, label);
    const bool directive = t.startsWith('.') && !labelled && !t.contains(".entry ") && !t.contains(".func ");
    if (hide_directives && (comment || directive)) continue;
    if (!labelled && hide_directives)
      for (auto it = reference.globalMatch(t); it.hasNext();) used.insert(it.next().captured(0));
    kept.push_back(k);
  }
  for (int k : kept) {
    const QString t = raw[k].trimmed();
    QString label;
    if (hide_directives && is_label(t, label) && !is_function_head(t, label) && !used.count(label)) continue;
    out.lines << raw[k];
    // A label belongs to what follows it, not to the line before.
    out.source_line.push_back(is_label(t, label) ? -1 : from[static_cast<std::size_t>(k)]);
  }
  return out;
}

}  // namespace lego::views
