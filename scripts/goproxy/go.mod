module github.com/syncworker/syncworker/scripts/goproxy

go 1.24.0

require golang.org/x/mod v0.33.0
