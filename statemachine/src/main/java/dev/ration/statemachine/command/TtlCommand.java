package dev.ration.statemachine.command;

/** The TTL ledger's commands: entries and namespaces. Codes 20-39 of the log format. */
public sealed interface TtlCommand extends Command
    permits PutEntry, CompareAndSetEntry, RefreshEntry, DeleteEntry, SetNamespace {

  /** Calls the {@code handler} method for this command. */
  <R> R accept(Handler<R> handler);

  @Override
  default Class<TtlCommand> family() {
    return TtlCommand.class;
  }

  /** One method per TTL command: whoever applies them must handle every one. */
  interface Handler<R> {
    R put(PutEntry command);

    R compareAndSet(CompareAndSetEntry command);

    R refresh(RefreshEntry command);

    R delete(DeleteEntry command);

    R setNamespace(SetNamespace command);
  }
}
