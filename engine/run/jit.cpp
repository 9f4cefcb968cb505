#include "run/jit.hpp"

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <chrono>
#include <map>
#include <mutex>

#include "run/libraries.hpp"

#if defined(__SANITIZE_ADDRESS__)
// LLVM 15 keeps target and legalizer tables it never frees; LeakSanitizer
// reports them as indirect leaks at exit. They are LLVM's, not ours: our own
// allocations stay checked.
extern "C" const char* __lsan_default_suppressions() { return "leak:libLLVM-15.so\n"; }
#endif

namespace lego::run {
namespace {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // OpenMP kernels call into libomp; load it globally so the JIT finds __kmpc_*.
    std::string error;
    llvm::sys::DynamicLibrary::LoadLibraryPermanently(LEGO_LIBOMP_PATH, &error);
  });
}

class LlJitModule final : public JitModule {
 public:
  LlJitModule(std::unique_ptr<llvm::orc::LLJIT> jit, std::string assembly) : jit_(std::move(jit)), assembly_(std::move(assembly)) {}
  void* lookup(const std::string& name) override {
    auto symbol = jit_->lookup(name);
    if (!symbol) {
      llvm::consumeError(symbol.takeError());
      return nullptr;
    }
    return symbol->toPtr<void*>();
  }
  const std::string& assembly() const override { return assembly_; }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string assembly_;
};

// Compiled, never linked: nothing of it can run.
class AssemblyOnly final : public JitModule {
 public:
  explicit AssemblyOnly(std::string assembly) : assembly_(std::move(assembly)) {}
  void* lookup(const std::string&) override { return nullptr; }
  const std::string& assembly() const override { return assembly_; }

 private:
  std::string assembly_;
};

std::string error_text(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << error;
  return os.str();
}

// Clang's driver turns a plain command line into the cc1 invocation, with
// the system and resource include paths and -march=native resolved.
std::unique_ptr<llvm::Module> frontend(const std::string& source, const CompileOptions& options, llvm::LLVMContext& context,
                                       std::string& diagnostics) {
  llvm::raw_string_ostream diag_stream(diagnostics);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_options = new clang::DiagnosticOptions();
  diag_options->ShowPresumedLoc = true;  // honour #line: messages point into the template, not the expansion
  auto* printer = new clang::TextDiagnosticPrinter(diag_stream, diag_options.get());
  clang::DiagnosticsEngine diags(new clang::DiagnosticIDs(), diag_options, printer);

  clang::driver::Driver driver(LEGO_CLANG_PATH, llvm::sys::getProcessTriple(), diags);
  driver.setCheckInputsExist(false);
  std::vector<std::string> args = {"clang++",         "-fsyntax-only", "-x",        "c++", "-std=c++17", "-O3", "-ffp-contract=fast",
                                   "-fno-exceptions", "-Wall",         "kernel.cpp"};
  const auto flags = target::clang_flags(options.target);
  args.insert(args.end() - 1, flags.begin(), flags.end());
  if (options.openmp) args.insert(args.end() - 1, "-fopenmp");
  // The line table only (no variables or types): the assembly's .loc lines
  // link each instruction to its source line in the app. It changes no code.
  if (options.want_assembly) args.insert(args.end() - 1, "-gline-tables-only");
  args.insert(args.end() - 1, options.extra_args.begin(), options.extra_args.end());
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || compilation->getJobs().empty()) {
    diag_stream << "error: the compiler driver could not build a compile job\n";
    return nullptr;
  }
  const auto& command = llvm::cast<clang::driver::Command>(*compilation->getJobs().begin());

  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, command.getArguments(), diags)) return nullptr;
  invocation->getPreprocessorOpts().addRemappedFile("kernel.cpp", llvm::MemoryBuffer::getMemBufferCopy(source, "kernel.cpp").release());
  invocation->getFrontendOpts().DisableFree = false;

  clang::CompilerInstance compiler;
  compiler.setInvocation(std::move(invocation));
  compiler.createDiagnostics(new clang::TextDiagnosticPrinter(diag_stream, diag_options.get()), true);
  compiler.setVerboseOutputStream(std::make_unique<llvm::raw_string_ostream>(diagnostics));  // "N warnings generated"
  clang::EmitLLVMOnlyAction action(&context);
  if (!compiler.ExecuteAction(action)) return nullptr;
  return action.takeModule();
}

// Errors LLVM reports while generating code (inline asm whose operands
// cannot be allocated, say) are collected here; without a handler LLVM
// prints them and exits the process.
// The handler belongs to the module's context, which the JIT frees after
// code generation, so what it collects lives in a state shared with us.
struct CodegenErrors {
  std::string text;
};
struct CollectedDiagnostics final : llvm::DiagnosticHandler {
  explicit CollectedDiagnostics(std::shared_ptr<CodegenErrors> out) : out_(std::move(out)) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() != llvm::DS_Error) return true;
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    out_->text += "error: LLVM: " + os.str() + "\n";
    return true;
  }

 private:
  std::shared_ptr<CodegenErrors> out_;
};

// A function the module defines, to look up once it is added: the JIT
// generates a module's code on the first look-up, and that should happen
// here, where errors are collected, not when the caller runs it.
std::string defined_function(const llvm::Module& module) {
  for (const auto& f : module.functions())
    if (!f.isDeclaration() && f.hasExternalLinkage()) return f.getName().str();
  return "";
}

llvm::Expected<llvm::orc::JITTargetMachineBuilder> machine_builder(const target::Target& t) {
  if (t.host) return llvm::orc::JITTargetMachineBuilder::detectHost();
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(llvm::sys::getProcessTriple())};
  builder.setCPU(t.cpu);
  std::vector<std::string> features;
  for (const auto& f : t.features) features.push_back("+" + f);
  builder.addFeatures(features);
  return builder;
}

// Machine code for the module, thrown away: what a build would assemble,
// so the assembler's errors (inline asm it refuses) are found without
// linking or loading anything.
void emit_object(const llvm::Module& module, llvm::orc::JITTargetMachineBuilder builder) {
  auto machine = builder.createTargetMachine();
  if (!machine) return;
  auto copy = llvm::CloneModule(module);
  copy->setDataLayout((*machine)->createDataLayout());
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager passes;
  if ((*machine)->addPassesToEmitFile(passes, os, nullptr, llvm::CGFT_ObjectFile)) return;
  passes.run(*copy);
}

std::string emit_assembly(const llvm::Module& module, llvm::orc::JITTargetMachineBuilder builder) {
  auto machine = builder.createTargetMachine();
  if (!machine) return "; no assembly: " + error_text(machine.takeError());
  auto copy = llvm::CloneModule(module);
  copy->setDataLayout((*machine)->createDataLayout());
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager passes;
  if ((*machine)->addPassesToEmitFile(passes, os, nullptr, llvm::CGFT_AssemblyFile)) return "; no assembly: the target cannot emit it";
  passes.run(*copy);
  return std::string(text.str());
}

}  // namespace

std::string host_cpu() { return llvm::sys::getHostCPUName().str(); }

std::string cannot_run_here(const target::Target& t) {
  const target::Target& machine = target::host();
  if (t.arch != machine.arch)
    return "code for " + t.name + " (" + t.triple + ") cannot run on this " + machine.triple +
           " machine: export it (lego export --target " + t.name + ") and build it there";
  std::vector<std::string> missing;
  if (!target::runs_on(t, machine, &missing)) {
    std::string list;
    for (const auto& f : missing) list += (list.empty() ? "" : ", ") + f;
    return "this machine (" + machine.cpu + ", " + machine.level() + ") lacks " + list + ", which target " + t.name + " needs";
  }
  return "";
}

void on_llvm_fatal_error(std::function<void(const std::string& message)> report) {
  static std::function<void(const std::string&)> reporter;
  reporter = std::move(report);
  llvm::install_fatal_error_handler([](void*, const char* reason, bool) {
    if (reporter) reporter(std::string("LLVM: ") + reason);
  });
}

CompileResult compile_cpp(const std::string& source, const CompileOptions& options) {
  initialize_llvm();
  const auto start = std::chrono::steady_clock::now();
  CompileResult result;
  if (const std::string why = cannot_run_here(options.target); !why.empty()) {
    result.diagnostics = "error: " + why + "\n";
    return result;
  }
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = frontend(source, options, *context, result.diagnostics);
  auto finish = [&] {
    result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return std::move(result);
  };
  if (!module) {
    if (result.diagnostics.empty()) result.diagnostics = "error: compilation failed\n";
    return finish();
  }

  if (!options.library.empty()) {
    // Only names on this list are ever loaded: a project cannot pick a file.
    const Library* library = find_library(options.library);
    std::string error;
    if (!library) {
      result.diagnostics += "error: unknown library \"" + options.library + "\" (" + library_names() + ")\n";
      return finish();
    }
    if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(library->soname.c_str(), &error)) {
      result.diagnostics += "error: cannot load " + library->soname + " (install " + library->package + "): " + error + "\n";
      return finish();
    }
  }
  auto target = machine_builder(options.target);
  if (!target) {
    result.diagnostics += error_text(target.takeError());
    return finish();
  }
  target->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  // A JIT defaults to the large code model: every constant-pool load and
  // call goes through a 64-bit absolute address, which halved the speed of
  // the 27-point stencil against the same source built by clang++. JITLink
  // places a module's sections in one slab and builds GOT/PLT entries for
  // symbols outside it, so the small model (what clang++ uses) is safe.
  target->setCodeModel(llvm::CodeModel::Small);
  target->setRelocationModel(llvm::Reloc::PIC_);
  auto codegen = std::make_shared<CodegenErrors>();
  context->setDiagnosticHandler(std::make_unique<CollectedDiagnostics>(codegen));
  const auto codegen_failed = [&] {
    result.diagnostics += codegen->text;
    return !codegen->text.empty();
  };
  const std::string assembly = options.want_assembly || !options.link ? emit_assembly(*module, *target) : std::string();
  if (codegen_failed()) return finish();
  if (!options.link) {
    emit_object(*module, *target);
    if (codegen_failed()) return finish();
    result.module = std::make_unique<AssemblyOnly>(assembly);
    return finish();
  }
  const std::string first_function = defined_function(*module);

  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(*target)
                 .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession& session, const llvm::Triple&) {
                   return std::make_unique<llvm::orc::ObjectLinkingLayer>(session);
                 })
                 .create();
  if (!jit) {
    result.diagnostics += error_text(jit.takeError());
    return finish();
  }
  auto& dylib = (*jit)->getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    result.diagnostics += error_text(process.takeError());
    return finish();
  }
  dylib.addGenerator(std::move(*process));
  module->setDataLayout((*jit)->getDataLayout());
  if (auto error = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    result.diagnostics += error_text(std::move(error));
    return finish();
  }
  if (!first_function.empty()) {
    auto symbol = (*jit)->lookup(first_function);
    if (!symbol) result.diagnostics += "error: " + error_text(symbol.takeError()) + "\n";
    if (!symbol || codegen_failed()) return finish();
  }
  if (auto error = (*jit)->initialize(dylib)) {
    result.diagnostics += error_text(std::move(error));
    return finish();
  }
  result.module = std::make_unique<LlJitModule>(std::move(*jit), assembly);
  return finish();
}

}  // namespace lego::run
