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
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "run/libraries.hpp"

#if defined(LEGO_SANITIZED)
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

// The module's static constructors as one function, which load_object
// calls. The JIT runs the constructors of IR it compiles itself, but not
// those of an object file (that takes the ORC runtime), and a kernel's
// process loads an object compiled elsewhere: without this, a global with a
// dynamic initializer would be left zero there.
constexpr const char* kConstructors = "__lego_constructors";

// Every object gets one, empty when it has none: a look-up that fails is
// reported on stderr by the JIT.
void gather_constructors(llvm::Module& module) {
  llvm::GlobalVariable* list = module.getNamedGlobal("llvm.global_ctors");
  std::vector<std::pair<std::uint64_t, llvm::Function*>> constructors;  // priority, function
  if (const auto* array = list ? llvm::dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer()) : nullptr)
    for (const llvm::Use& element : array->operands()) {
      const auto* entry = llvm::dyn_cast<llvm::ConstantStruct>(element.get());
      if (!entry || entry->getNumOperands() < 2) continue;
      const auto* priority = llvm::dyn_cast<llvm::ConstantInt>(entry->getOperand(0));
      auto* function = llvm::dyn_cast<llvm::Function>(entry->getOperand(1)->stripPointerCasts());
      if (priority && function) constructors.emplace_back(priority->getZExtValue(), function);
    }
  std::stable_sort(constructors.begin(), constructors.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  llvm::LLVMContext& context = module.getContext();
  auto* all = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context), false), llvm::GlobalValue::ExternalLinkage,
                                     kConstructors, module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", all));
  for (const auto& [priority, function] : constructors) builder.CreateCall(function->getFunctionType(), function);
  builder.CreateRetVoid();
  if (list) list->eraseFromParent();
}

// The CUDA emulator's shared memory: the shim puts every __shared__
// variable in this section and declares the table below; the table is
// filled here, after optimisation, with what is left in the section, so the
// emulator can poison shared memory when a block starts and refuse an
// ldmatrix row or cp.async destination outside it. Modules that do not
// declare the table are left alone.
constexpr const char* kSharedSection = "lego_shared";
constexpr const char* kSharedRegions = "lego_shared_regions";
constexpr const char* kSharedRegionCount = "lego_shared_region_count";

void list_shared_regions(llvm::Module& module) {
  llvm::GlobalVariable* declared = module.getNamedGlobal(kSharedRegions);
  llvm::GlobalVariable* declared_count = module.getNamedGlobal(kSharedRegionCount);
  if (!declared || !declared->isDeclaration() || !declared_count || !declared_count->isDeclaration()) return;
  llvm::LLVMContext& context = module.getContext();
  const llvm::DataLayout& layout = module.getDataLayout();
  auto* address = llvm::PointerType::getUnqual(context);
  auto* bytes = llvm::Type::getInt64Ty(context);
  auto* region = llvm::StructType::get(context, {address, bytes});
  std::vector<llvm::Constant*> regions;
  for (llvm::GlobalVariable& g : module.globals())
    if (!g.isDeclaration() && g.getSection() == kSharedSection)
      regions.push_back(
          llvm::ConstantStruct::get(region, {&g, llvm::ConstantInt::get(bytes, layout.getTypeAllocSize(g.getValueType()).getFixedSize())}));
  regions.push_back(llvm::ConstantStruct::get(region, {llvm::ConstantPointerNull::get(address), llvm::ConstantInt::get(bytes, 0)}));
  auto* type = llvm::ArrayType::get(region, regions.size());
  auto* table = new llvm::GlobalVariable(module, type, true, llvm::GlobalValue::ExternalLinkage, llvm::ConstantArray::get(type, regions));
  declared->replaceAllUsesWith(table);
  table->takeName(declared);
  declared->eraseFromParent();
  auto* count_type = declared_count->getValueType();
  auto* count = new llvm::GlobalVariable(module, count_type, true, llvm::GlobalValue::ExternalLinkage,
                                         llvm::ConstantInt::get(count_type, regions.size() - 1));
  declared_count->replaceAllUsesWith(count);
  count->takeName(declared_count);
  declared_count->eraseFromParent();
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

// The module's relocatable object: what a build would assemble (so the
// assembler's errors, inline asm it refuses, are found here) and what a
// kernel's process links and loads. Empty when the target cannot emit one.
std::string emit_object(const llvm::Module& module, llvm::orc::JITTargetMachineBuilder builder) {
  auto machine = builder.createTargetMachine();
  if (!machine) return "";
  auto copy = llvm::CloneModule(module);
  copy->setDataLayout((*machine)->createDataLayout());
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager passes;
  if ((*machine)->addPassesToEmitFile(passes, os, nullptr, llvm::CGFT_ObjectFile)) return "";
  passes.run(*copy);
  return std::string(bytes.str());
}

// The settings every object is built with, so that what compile_object
// emits is what load_object's linker expects.
llvm::Expected<llvm::orc::JITTargetMachineBuilder> code_builder(const target::Target& t) {
  auto builder = machine_builder(t);
  if (!builder) return builder;
  builder->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  // A JIT defaults to the large code model: every constant-pool load and
  // call goes through a 64-bit absolute address, which halved the speed of
  // the 27-point stencil against the same source built by clang++. JITLink
  // places a module's sections in one slab and builds GOT/PLT entries for
  // symbols outside it, so the small model (what clang++ uses) is safe.
  builder->setCodeModel(llvm::CodeModel::Small);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder;
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

void start_openmp_runtime() {
  initialize_llvm();
  if (auto* threads = reinterpret_cast<int (*)()>(llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("omp_get_max_threads"))) threads();
}

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

ObjectCode compile_object(const std::string& source, const CompileOptions& options) {
  initialize_llvm();
  const auto start = std::chrono::steady_clock::now();
  ObjectCode code;
  auto finish = [&] {
    code.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return std::move(code);
  };
  if (const std::string why = cannot_run_here(options.target); !why.empty()) {
    code.diagnostics = "error: " + why + "\n";
    return finish();
  }
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = frontend(source, options, *context, code.diagnostics);
  if (!module) {
    if (code.diagnostics.empty()) code.diagnostics = "error: compilation failed\n";
    return finish();
  }
  list_shared_regions(*module);
  auto target = code_builder(options.target);
  if (!target) {
    code.diagnostics += error_text(target.takeError());
    return finish();
  }
  auto codegen = std::make_shared<CodegenErrors>();
  context->setDiagnosticHandler(std::make_unique<CollectedDiagnostics>(codegen));
  const auto codegen_failed = [&] {
    code.diagnostics += codegen->text;
    return !codegen->text.empty();
  };
  if (options.want_assembly || !options.link) code.assembly = emit_assembly(*module, *target);
  if (codegen_failed()) return finish();
  code.first_function = defined_function(*module);
  gather_constructors(*module);
  std::string object = emit_object(*module, *target);
  if (codegen_failed()) return finish();
  if (object.empty()) {
    code.diagnostics += "error: LLVM: the target cannot emit an object file\n";
    return finish();
  }
  code.object = std::move(object);
  return finish();
}

CompileResult load_object(const ObjectCode& code, const CompileOptions& options) {
  initialize_llvm();
  const auto start = std::chrono::steady_clock::now();
  CompileResult result;
  auto finish = [&] {
    result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return std::move(result);
  };
  if (const std::string why = cannot_run_here(options.target); !why.empty()) {
    result.diagnostics = "error: " + why + "\n";
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
  auto target = code_builder(options.target);
  if (!target) {
    result.diagnostics += error_text(target.takeError());
    return finish();
  }
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
  // Link errors (a symbol defined nowhere) reach the session's reporter,
  // which would print them on stderr: they belong in the diagnostics.
  auto link_errors = std::make_shared<std::string>();
  (*jit)->getExecutionSession().setErrorReporter(
      [link_errors](llvm::Error error) { *link_errors += "error: " + error_text(std::move(error)) + "\n"; });
  auto& dylib = (*jit)->getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    result.diagnostics += error_text(process.takeError());
    return finish();
  }
  dylib.addGenerator(std::move(*process));
  if (auto error = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(code.object, "kernel.o"))) {
    result.diagnostics += error_text(std::move(error));
    return finish();
  }
  // Linked on the first look-up: an undefined symbol is reported here, as a
  // compile error, not when the caller runs it.
  if (!code.first_function.empty()) {
    auto symbol = (*jit)->lookup(code.first_function);
    if (!symbol) {
      result.diagnostics += *link_errors + "error: " + error_text(symbol.takeError()) + "\n";
      return finish();
    }
  }
  if (auto constructors = (*jit)->lookup(kConstructors))
    constructors->toPtr<void (*)()>()();
  else
    llvm::consumeError(constructors.takeError());  // not from compile_object
  result.module = std::make_unique<LlJitModule>(std::move(*jit), code.assembly);
  return finish();
}

CompileResult compile_cpp(const std::string& source, const CompileOptions& options) {
  ObjectCode code = compile_object(source, options);
  CompileResult result;
  result.diagnostics = code.diagnostics;
  result.ms = code.ms;
  if (code.object.empty()) return result;
  if (!options.link) {
    result.module = std::make_unique<AssemblyOnly>(std::move(code.assembly));
    return result;
  }
  CompileResult loaded = load_object(code, options);
  loaded.diagnostics = result.diagnostics + loaded.diagnostics;
  loaded.ms += result.ms;
  return loaded;
}

}  // namespace lego::run
