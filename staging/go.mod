// A module of its own, so that the main module's go vet, staticcheck and go test skip the staged
// references (their imports name the workspace module "orders"). Not part of the kata: it stays
// behind when the lead moves validation-retry-error-feedback into place.
module staging

go 1.22
