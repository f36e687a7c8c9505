package dev.ration.statemachine.command;

/**
 * A command that names who made it, for the audit logs. In security mode secure the endpoint
 * replaces the name the caller sent with the authenticated identity ({@link #withActor}), so no
 * caller can record a change as someone else's. Each such command says here, once, how it
 * carries the name.
 */
public interface NamesActor {

  /** This command with {@code actor} as the identity that made it. */
  Command withActor(String actor);
}
