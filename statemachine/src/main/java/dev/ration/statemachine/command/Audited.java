package dev.ration.statemachine.command;

import dev.ration.statemachine.result.Result;

/**
 * A change the security ledger's audit log records with the identity that made it, for
 * commands whose own ledger keeps no audit of them (quota changes are also in the quota audit
 * log; the security ledger's own commands audit themselves).
 */
public interface Audited {

  /**
   * What the audit log records for this command given the {@code result} it had, or null when
   * the result says nothing changed (a refusal).
   */
  AuditLine auditLine(Result result);

  /** One audit record's description: action, tenant or scope, subject, free text. */
  record AuditLine(String action, String scope, String resource, String detail) {}
}
