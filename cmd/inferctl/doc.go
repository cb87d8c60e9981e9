// Command inferctl is the command-line client of inferd: predictions, batches from
// JSON Lines or CSV files, jobs, models and administration, with exit codes that scripts
// can branch on. `inferctl --help` lists the commands; internal/cli holds the code.
package main
