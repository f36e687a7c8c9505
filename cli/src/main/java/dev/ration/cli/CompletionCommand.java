package dev.ration.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * `ration completion [bash|zsh]`: prints a shell completion script for every command and option
 * (picocli's generator), to be sourced or installed (docs/CLI.md, "Shell completion").
 */
@Command(name = "completion", description = {
    "Print a shell completion script for ration.",
    "bash: source <(ration completion bash); zsh: source <(ration completion zsh)."})
final class CompletionCommand implements Callable<Integer> {
  enum Shell { bash, zsh }

  @Spec CommandSpec spec;
  @picocli.CommandLine.Mixin HelpOption help;

  @Parameters(index = "0", arity = "0..1", defaultValue = "bash", paramLabel = "SHELL",
      description = "bash (default) or zsh.")
  Shell shell = Shell.bash;

  @Override
  public Integer call() {
    String script = AutoComplete.bash("ration", spec.root().commandLine());
    if (shell == Shell.zsh) {
      // The bash script runs under zsh once bash completion emulation is loaded.
      script = "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + script;
    }
    spec.commandLine().getOut().print(script);
    spec.commandLine().getOut().flush();
    return Exit.OK;
  }
}
