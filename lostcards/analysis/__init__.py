"""Analysis on simulated rounds: estimators, move logs, game metrics, sweeps, tournaments, solitaire, claims."""
