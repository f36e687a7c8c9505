/**
 * Test support shared by every module: seeded, replayable property runs ({@link
 * dev.ration.testkit.Property}, with generators built on {@link dev.ration.testkit.Rng} and
 * {@link dev.ration.testkit.Gen}) and deadline-bounded waits. Used only in test scope; nothing in
 * production code depends on it.
 */
package dev.ration.testkit;
