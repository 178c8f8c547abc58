package config

// FaultKinds exposes faultKinds to the external tests, which compare it
// with chaos.Kinds().
var FaultKinds = faultKinds
