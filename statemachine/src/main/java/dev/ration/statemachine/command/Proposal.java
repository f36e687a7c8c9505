package dev.ration.statemachine.command;

/** One command in a batch, with the idempotency key it was sent under. */
public record Proposal(RequestKey key, Command command) {}
