package dev.ration.statemachine.query;

/**
 * Where a reservation item was counted: one level of its scope path, and the window it was
 * charged in (0 for unwindowed kinds). Settlement trims the charge only in that same window.
 */
public record LevelCharge(String levelScope, long windowStartMillis) {}
