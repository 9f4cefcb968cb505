// lego-studio: the desktop app. Usage:
//   lego-studio [FILE [--layout NAME]]            open a layout program (.lego) or a project (.lego.json)
//   lego-studio --example NAME                    open one of the paper's examples
//   lego-studio --first-paint-ms                  print the time to the first painted window and quit
//   lego-studio --project P --set N=256 [--run]   a project's kernel at other sizes (the Sizes row)
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "studio/main_window.hpp"

namespace {

// The first row that is a variant, not a baseline (a copy is often fastest).
QString first_variant(const lego::studio::KernelsPanel& panel) {
  const QStringList shown = panel.shownVariants();
  for (const QString& id : shown)
    if (!panel.variants().row(panel.variants().rowOf(id)).baseline) return id;
  return shown.value(0);
}

// --help and --version print text: without a display (an ssh session)
// they must not fail for want of one, so Qt gets its offscreen platform.
void print_without_a_display(int argc, char** argv) {
  if (std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM")) return;
  for (int k = 1; k < argc; ++k)
    if (std::strcmp(argv[k], "--help") == 0 || std::strcmp(argv[k], "-h") == 0 || std::strcmp(argv[k], "--version") == 0 ||
        std::strcmp(argv[k], "-v") == 0)
      setenv("QT_QPA_PLATFORM", "offscreen", 1);
}

}  // namespace

int main(int argc, char** argv) {
  QElapsedTimer clock;
  clock.start();
  print_without_a_display(argc, argv);
  QApplication app(argc, argv);
  QApplication::setApplicationName("lego-studio");
  QApplication::setOrganizationName("lego-studio");
  QApplication::setApplicationDisplayName("LEGO Studio");
  QCommandLineParser cli;
  cli.setApplicationDescription("Compose data and thread layouts from LEGO pieces and see what they produce.");
  cli.addHelpOption();
  cli.addPositionalArgument("file", "A layout program (.lego) or a project (.lego.json) to open");
  // Not --name: Qt's X11 platform takes -name/--name for itself and removes it.
  cli.addOption({"layout", "The layout of the program to open (by its name in the program)", "NAME"});
  cli.addOption({"example", "One of the paper's example layouts (Fig6Chain, NW, LUD, Bricks, MatmulPid, ..)", "NAME"});
  cli.addOption({"project", "A project (.lego.json) whose kernels open in the kernels panel", "FILE"});
  cli.addOption({"run", "With --project: run every variant of its first kernel"});
  cli.addOption({"banks", "Show the bank-conflict heatmap for a warp walking rows, columns or anti-diagonals", "WALK"});
  cli.addOption({"kernel", "With --project: the kernel to show (and to sweep with --run)", "NAME"});
  cli.addOption({"target", "With --project: make the variants for this CPU (host, x86-64-v3, znver3, aarch64, ...; lego targets)", "NAME"});
  cli.addOption({"show", "The kernels panel's tab to show: kernel, expressions, assembly, roofline, accesses or threadmap", "TAB"});
  cli.addOption({"first-paint-ms", "Print milliseconds from start to the first painted window with a drawn layout, then quit"});
  cli.addOption({"screenshot", "Save a screenshot of the window once the layout is drawn, then quit", "FILE.png"});
  cli.addOption({"atom", "Show an atom's operand in the Atoms panel, e.g. mma.m16n8k16.f16:A (lego atom lists them)", "NAME[:OPERAND]"});
  cli.addOption({"warps", "With --atom: the TiledMMA's warp grid, e.g. 2x2", "MxN"});
  cli.addOption({"repeat", "With --atom: atom tiles each warp repeats, e.g. 2x4", "MxN"});
  cli.addOption({"lane", "With --atom: light up this lane's values (warp:lane, e.g. 0:5)", "W:L"});
  cli.addOption({"shared", "With --atom: a shared buffer's layout the atom walks (lanes x banks), e.g. 'CuTe(Sw<3,3,3> o (64,64):(64,1))'",
                 "LAYOUT"});
  cli.addOption({"bytes", "With --shared: bytes per element of the buffer (2, 4 or 8; default 2)", "N"});
  cli.addOption({"convert",
                 "Plan a layout conversion in the Convert panel from this thread-value layout (as lego convert reads FROM), e.g. "
                 "'mma.m16n8k16.f16:C, [1,1], [1,2]'",
                 "FROM"});
  cli.addOption({"convert-to", "With --convert: the layout to convert to (lego convert's TO)", "TO"});
  cli.addOption({"convert-tile", "With --convert: ROWSxCOLS of the tile (lego convert's --tile)", "RxC"});
  cli.addOption({"convert-elem", "With --convert: the element type (lego convert's --elem; default f32)", "TYPE"});
  cli.addOption({"convert-warps", "With --convert: warps holding the tile (lego convert's --warps; default 1)", "N"});
  cli.addOption({"convert-plan", "With --convert: show this plan (its row, from 1, in the plans table) instead of the chosen one", "ROW"});
  cli.addOption({"convert-step", "With --convert: show this step of the plan (from 1) instead of its last", "N"});
  cli.addOption(
      {"colour", "Colour cells by tile, physical or logical order, thread, warp or bank", "tile|physical|logical|thread|warp|bank"});
  cli.addOption({"verify-smaller", "With --run: then verify CUDA variants too large to emulate at smaller problem sizes"});
  cli.addOption({"single", "With --run and --screenshot: select only the fastest variant (Assembly then links it to its source)"});
  cli.addOption({"search",
                 "With --project: search the kernel's variants, e.g. model:40 or evolve:90s:2 (strategy:budget[:seed]); with "
                 "--screenshot, the Tuning tab once it ends",
                 "STRATEGY:BUDGET[:SEED]"});
  cli.addOption({"suggest", "With --project: rank layouts for this buffer of the kernel (opens Suggested layouts)", "BUFFER"});
  cli.addOption({"threads", "Threads per step when the layout is read as a thread mapping (default 32)", "N"});
  cli.addOption({"step", "Light up the elements of one step of the thread mapping", "S"});
  cli.addOption(
      {"set", "With --project: a parameter's values in the Sizes row, as typed there, e.g. --set N=1024 or --set 'T=8..64 x2' (repeatable)",
       "NAME=VALUES"});
  cli.addOption({"select-rows",
                 "With --project and --screenshot, without --run: select these rows of the variants table (as numbered), e.g. 1,2",
                 "ROWS"});
  cli.process(app);

  lego::studio::MainWindow window;
  if (!cli.positionalArguments().isEmpty()) window.openFile(cli.positionalArguments().first(), cli.value("layout"));
  if (cli.isSet("example") && !window.openExample(cli.value("example"))) {
    std::fprintf(stderr, "lego-studio: no example named %s\n", qPrintable(cli.value("example")));
    return 2;
  }
  if (cli.isSet("example")) window.closeWelcome();
  if (cli.isSet("first-paint-ms")) {
    QObject::connect(&window, &lego::studio::MainWindow::snapshotShown, &app, [&] {
      window.tensorView()->repaint();  // painted synchronously, then measured
      std::printf("%.1f\n", static_cast<double>(clock.nsecsElapsed()) / 1e6);
      std::fflush(stdout);
      QTimer::singleShot(0, &app, &QApplication::quit);
    });
  }
  if (cli.isSet("project")) {
    if (cli.isSet("kernel"))  // connected first: the kernel is chosen before --run sweeps it
      QObject::connect(
          window.kernels(), &lego::studio::KernelsPanel::projectLoaded, window.kernels(),
          [&window, name = cli.value("kernel")] {
            if (window.kernels()->kernelChoice()->findText(name) < 0)
              std::fprintf(stderr, "lego-studio: the project has no kernel %s\n", qPrintable(name));
            else
              window.kernels()->kernelChoice()->setCurrentText(name);
          },
          Qt::SingleShotConnection);
    if (cli.isSet("set"))  // connected before --run: the sweep then waits for these sizes
      QObject::connect(
          window.kernels(), &lego::studio::KernelsPanel::projectLoaded, window.kernels(),
          [&window, sets = cli.values("set")] { window.kernels()->typeSizes(sets); }, Qt::SingleShotConnection);
    if (cli.isSet("suggest"))
      QObject::connect(
          window.kernels(), &lego::studio::KernelsPanel::projectLoaded, window.kernels(),
          [&window, buffer = cli.value("suggest")] {
            QComboBox* layouts = window.kernels()->layoutChoice();
            for (int k = 0; k < layouts->count(); ++k)
              if (layouts->itemText(k).startsWith(buffer + ": ")) {
                layouts->setCurrentIndex(k);
                return window.kernels()->suggestForSelectedLayout();
              }
            std::fprintf(stderr, "lego-studio: the kernel has no buffer %s\n", qPrintable(buffer));
          },
          Qt::SingleShotConnection);
    if (cli.isSet("run"))
      QObject::connect(window.kernels(), &lego::studio::KernelsPanel::projectLoaded, window.kernels(),
                       &lego::studio::KernelsPanel::runSweep, Qt::SingleShotConnection);
    if (cli.isSet("search")) {
      const QStringList parts = cli.value("search").split(':');
      bool seed_ok = true;
      const std::uint64_t seed = parts.size() > 2 ? parts[2].toULongLong(&seed_ok) : 1;
      if (parts.size() < 2 || parts.size() > 3 || !seed_ok) {
        std::fprintf(stderr, "lego-studio: --search takes STRATEGY:BUDGET[:SEED], e.g. model:40 or evolve:90s:2\n");
        return 2;
      }
      QObject::connect(
          window.kernels(), &lego::studio::KernelsPanel::projectLoaded, window.kernels(),
          [&window, parts, seed] {
            window.showTuning();
            window.kernels()->startSearch(parts[0], parts[1], seed);
          },
          Qt::SingleShotConnection);
    }
    if (cli.isSet("target")) {
      const QString name = cli.value("target");
      if (window.kernels()->targetChoice()->findData(name) < 0) {
        std::fprintf(stderr, "lego-studio: unknown target %s (lego targets lists them)\n", qPrintable(name));
        return 2;
      }
      window.kernels()->chooseTarget(name);  // before the project opens: it loads once, for this target
    }
    window.kernels()->openProject(cli.value("project"));
    if (cli.isSet("show")) {
      const QStringList tabs = {"kernel", "expressions", "assembly", "accesses", "roofline"};  // the panel's tab order
      const bool thread_map = cli.value("show") == "threadmap";                                // the Accesses tab's second view
      if (!tabs.contains(cli.value("show")) && !thread_map) {
        std::fprintf(stderr, "lego-studio: --show takes kernel, expressions, assembly, roofline, accesses or threadmap\n");
        return 2;
      }
      window.kernels()->findChild<QTabWidget*>()->setCurrentIndex(thread_map ? static_cast<int>(tabs.indexOf("accesses"))
                                                                             : static_cast<int>(tabs.indexOf(cli.value("show"))));
      if (thread_map) window.kernels()->accesses()->views()->setCurrentIndex(1);
      window.resizeWithin({1280, 1000});  // room for the code, on a screen that has it
      window.resizeDocks({window.findChild<QDockWidget*>("kernels")}, {440}, Qt::Vertical);
    }
  }
  if (cli.isSet("banks")) {
    const QStringList walks = {"rows", "columns", "anti-diagonals"};
    if (!walks.contains(cli.value("banks"))) {
      std::fprintf(stderr, "lego-studio: --banks takes rows, columns or anti-diagonals\n");
      return 2;
    }
    window.bankWalk()->setCurrentIndex(static_cast<int>(walks.indexOf(cli.value("banks"))));
    window.showBankConflicts();
  }
  for (const char* option : {"warps", "repeat", "lane", "shared", "bytes"})
    if (cli.isSet(option) && !cli.isSet("atom")) {
      std::fprintf(stderr, "lego-studio: --%s goes with --atom\n", option);
      return 2;
    }
  if (cli.isSet("atom")) {
    const QStringList name = cli.value("atom").split(':');
    // MxN with 1 <= M, N <= most (the panel's own limits).
    const auto grid = [&](const char* option, int most) -> std::optional<std::pair<int, int>> {
      if (!cli.isSet(option)) return std::pair{1, 1};
      const QStringList mn = cli.value(option).split('x');
      bool ok_m = false, ok_n = false;
      const int m = mn.value(0).toInt(&ok_m), n = mn.value(1).toInt(&ok_n);
      if (mn.size() != 2 || !ok_m || !ok_n || m < 1 || n < 1 || m > most || n > most) return std::nullopt;
      return std::pair{m, n};
    };
    const auto warps = grid("warps", 8), repeat = grid("repeat", 16);
    if (!warps || !repeat) {
      std::fprintf(stderr, "lego-studio: --warps takes MxN with 1 <= M, N <= 8, --repeat with 1 <= M, N <= 16 (e.g. 2x2)\n");
      return 2;
    }
    if (!window.showAtom(name.value(0), name.value(1))) {
      std::fprintf(stderr, "lego-studio: %s\n", qPrintable(window.atoms()->status()));
      return 2;
    }
    window.atoms()->setTiling(warps->first, warps->second, repeat->first, repeat->second);
    if (cli.isSet("shared")) {
      bool ok = false;
      const int bytes = cli.isSet("bytes") ? cli.value("bytes").toInt(&ok) : 2;
      if (cli.isSet("bytes") && (!ok || (bytes != 2 && bytes != 4 && bytes != 8))) {
        std::fprintf(stderr, "lego-studio: --bytes takes 2, 4 or 8\n");
        return 2;
      }
      window.atoms()->setSharedLayout(cli.value("shared"), bytes);
    }
    if (cli.isSet("lane")) {
      const QStringList wl = cli.value("lane").split(':');
      bool ok_w = false, ok_l = false;
      const int warp = wl.value(0).toInt(&ok_w), lane = wl.value(1).toInt(&ok_l);
      int warps_drawn = 0;
      for (const auto& h : window.atoms()->view()->table().cells) warps_drawn = std::max(warps_drawn, h.warp + 1);
      if (wl.size() != 2 || !ok_w || !ok_l || warp < 0 || warp >= warps_drawn || lane < 0 || lane > 31) {
        std::fprintf(stderr, "lego-studio: --lane takes WARP:LANE with a warp of the picture (0..%d) and a lane 0..31, e.g. 0:5\n",
                     warps_drawn - 1);
        return 2;
      }
      window.atoms()->view()->setHighlight(std::pair{warp, lane});
    }
  }
  for (const char* option : {"convert-to", "convert-tile", "convert-elem", "convert-warps", "convert-plan", "convert-step"})
    if (cli.isSet(option) && !cli.isSet("convert")) {
      std::fprintf(stderr, "lego-studio: --%s goes with --convert\n", option);
      return 2;
    }
  if (cli.isSet("convert")) {
    if (!cli.isSet("convert-to")) {
      std::fprintf(stderr, "lego-studio: --convert needs --convert-to TO\n");
      return 2;
    }
    bool ok = true;
    const int warps = cli.isSet("convert-warps") ? cli.value("convert-warps").toInt(&ok) : 1;
    if (!ok || warps < 1 || warps > 32) {
      std::fprintf(stderr, "lego-studio: --convert-warps takes 1 to 32\n");
      return 2;
    }
    bool plan_ok = true, step_ok = true;
    const int plan_row = cli.isSet("convert-plan") ? cli.value("convert-plan").toInt(&plan_ok) : 0,
              step = cli.isSet("convert-step") ? cli.value("convert-step").toInt(&step_ok) : 0;
    if (!plan_ok || !step_ok || plan_row < 0 || step < 0) {
      std::fprintf(stderr, "lego-studio: --convert-plan and --convert-step take a row and a step counted from 1\n");
      return 2;
    }
    QObject::connect(
        window.convertPanel(), &lego::views::ConvertPanel::planFinished, &window,
        [&window, plan_row, step] {
          lego::views::ConvertPanel& panel = *window.convertPanel();
          if (!panel.conversion()) std::fprintf(stderr, "lego-studio: %s\n", qPrintable(panel.status()));
          if (plan_row > 0) panel.selectPlan(plan_row - 1);
          if (step > 0) panel.setStep(step - 1);
        },
        Qt::SingleShotConnection);
    window.showConvert();
    window.convertPanel()->setConversion(cli.value("convert"), cli.value("convert-to"), cli.value("convert-tile"),
                                         cli.isSet("convert-elem") ? cli.value("convert-elem") : QString("f32"), warps);
  }
  if (cli.isSet("colour")) {
    const QString c = cli.value("colour");
    using C = lego::views::TensorView::Colouring;
    const std::map<QString, C> by_name = {
        {"tile", C::Tile}, {"physical", C::PhysicalOrder}, {"logical", C::LogicalOrder}, {"thread", C::Thread}, {"warp", C::Warp},
        {"bank", C::Bank}};
    if (!by_name.count(c)) {
      std::fprintf(stderr, "lego-studio: --colour takes tile, physical, logical, thread, warp or bank\n");
      return 2;
    }
    window.setColouring(by_name.at(c));
  }
  if (cli.isSet("threads") || cli.isSet("step")) {
    const int threads = cli.isSet("threads") ? cli.value("threads").toInt() : 32, step = cli.isSet("step") ? cli.value("step").toInt() : -1;
    QObject::connect(
        &window, &lego::studio::MainWindow::snapshotShown, &window, [&window, threads, step] { window.setThreadMapping(threads, step); },
        Qt::SingleShotConnection);
  }
  if (cli.isSet("screenshot")) {
    // A scripted run ends on a failure (a project that does not open, a
    // sweep that fails) with the error and the window as it shows it,
    // never waits for a result that will not come.
    QObject::connect(window.kernels(), &lego::studio::KernelsPanel::failed, &app,
                     [&window, path = cli.value("screenshot")](const QString& m) {
                       std::fprintf(stderr, "lego-studio: %s\n", qPrintable(m));
                       QTimer::singleShot(400, &window, [&window, path] {
                         if (!window.grab().save(path)) std::fprintf(stderr, "lego-studio: cannot write %s\n", qPrintable(path));
                         QApplication::exit(1);
                       });
                     });
  }
  if (cli.isSet("screenshot") && cli.isSet("search")) {
    const QString path = cli.value("screenshot");
    QObject::connect(window.kernels(), &lego::studio::KernelsPanel::sweepFinished, &app, [&window, path] {
      window.showTuning();
      QTimer::singleShot(600, &window, [&window, path] {
        if (!window.grab().save(path)) std::fprintf(stderr, "lego-studio: cannot write %s\n", qPrintable(path));
        QApplication::quit();
      });
    });
  } else if (cli.isSet("screenshot") && cli.isSet("run")) {
    // After the sweep: fastest first, the fastest and the slowest selected, so the code shows their diff.
    const QString path = cli.value("screenshot");
    const bool accesses = cli.value("show") == "accesses" || cli.value("show") == "threadmap";
    const bool single = cli.isSet("single");
    auto smaller = std::make_shared<bool>(cli.isSet("verify-smaller"));
    QObject::connect(window.kernels(), &lego::studio::KernelsPanel::sweepFinished, &app, [&window, path, accesses, single, smaller] {
      if (*smaller && !window.kernels()->needSmallerCheck().isEmpty()) {  // a second sweep first
        *smaller = false;
        window.kernels()->verifySmaller();
        return;
      }
      using lego::studio::VariantsModel;
      lego::studio::KernelsPanel& panel = *window.kernels();
      if (accesses || single) {  // the variant with the worst bank conflict, or the fastest, alone
        panel.sortVariants(accesses ? VariantsModel::BankWays : VariantsModel::Ms, accesses ? Qt::DescendingOrder : Qt::AscendingOrder);
        panel.selectVariants({first_variant(panel)});
      } else {
        panel.sortVariants(VariantsModel::Ms);
        panel.selectVariants({first_variant(panel), panel.shownVariants().value(panel.shownVariants().size() - 1)});
      }
      QTimer::singleShot(400, &window, [&window, path] {
        if (!window.grab().save(path)) std::fprintf(stderr, "lego-studio: cannot write %s\n", qPrintable(path));
        QApplication::quit();
      });
    });
  } else if (cli.isSet("screenshot") && cli.isSet("project")) {
    // Once the project has loaded at the --set sizes (or the Sizes row says why not): the rows asked for selected.
    const QString path = cli.value("screenshot");
    auto* settled = new QTimer(&app);
    QObject::connect(window.kernels(), &lego::studio::KernelsPanel::projectLoaded, settled, [settled] { settled->start(300); });
    QObject::connect(settled, &QTimer::timeout, &app,
                     [&window, settled, path, rows = cli.value("select-rows").split(',', Qt::SkipEmptyParts)] {
                       if (window.kernels()->resizing()) return;
                       settled->stop();
                       QStringList ids;
                       for (const QString& row : rows) ids << window.kernels()->shownVariants().value(row.toInt() - 1);
                       ids.removeAll(QString());
                       if (!ids.isEmpty()) window.kernels()->selectVariants(ids);
                       QTimer::singleShot(600, &window, [&window, path] {
                         if (!window.grab().save(path)) std::fprintf(stderr, "lego-studio: cannot write %s\n", qPrintable(path));
                         QApplication::quit();
                       });
                     });
  } else if (cli.isSet("screenshot") && cli.isSet("convert")) {
    // Once the conversion is planned (or refused): exit status 1 when it has no plan.
    QObject::connect(
        window.convertPanel(), &lego::views::ConvertPanel::planFinished, &app,
        [&window, path = cli.value("screenshot")] {
          QTimer::singleShot(400, &window, [&window, path] {
            if (!window.grab().save(path)) std::fprintf(stderr, "lego-studio: cannot write %s\n", qPrintable(path));
            QApplication::exit(window.convertPanel()->conversion() ? 0 : 1);
          });
        },
        Qt::SingleShotConnection);
  } else if (cli.isSet("screenshot")) {
    const QString path = cli.value("screenshot");
    QObject::connect(&window, &lego::studio::MainWindow::snapshotShown, &app, [&window, path] {
      QTimer::singleShot(400, &window, [&window, path] {
        if (!window.grab().save(path)) std::fprintf(stderr, "lego-studio: cannot write %s\n", qPrintable(path));
        QApplication::quit();
      });
    });
  }
  window.show();
  return QApplication::exec();
}
